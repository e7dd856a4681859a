/** How `submissions_left` reads on a page (shared by the challenge and take-part pages). */

const fmtDate = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** `submissions_left` (DESIGN): null numbers are unlimited. */
export interface SubmissionsLeftView {
  session: number | null;
  day: number | null;
  day_resets_at: string | null;
}

/** "9 left in this session · 49 left today (one more at 12:00 UTC)", or "no limit". */
export function submissionsLeftText(left: SubmissionsLeftView): string {
  const parts: string[] = [];
  if (left.session !== null) parts.push(`${left.session} left in this session`);
  if (left.day !== null)
    parts.push(
      `${left.day} left in 24 hours${left.day_resets_at ? ` (one more from ${fmtDate(new Date(left.day_resets_at))})` : ''}`,
    );
  return parts.length ? parts.join(' · ') : 'no limit';
}
