/** A timestamp as the API shows it (ISO 8601, UTC), or null. */
export const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);
