/**
 * Text that people type (DESIGN "Whatever a program writes is data"): agents' names, and by the
 * same rule clarification questions, answers and announcements. Pure: control or zero-width
 * characters anywhere are refused (newline and tab allowed in long text); then the text is
 * trimmed; then it must have at least one visible character that is not a combining mark, and at
 * most its maximum of characters. Create, rename and the heartbeat all read the name rule.
 */

export const AGENT_NAME_MAX_CHARS = 100;

/** C0/C1 controls (Cc) and format characters (Cf: zero-width space/joiners, bidi controls, BOM, soft hyphen). */
const CONTROL_OR_ZERO_WIDTH = /[\p{Cc}\p{Cf}\u180e\u034f]/u;
/** The same, but newline and tab: long text keeps its lines and indentation. */
const CONTROL_OR_ZERO_WIDTH_IN_LONG_TEXT = /[^\n\t\P{Cc}]|[\p{Cf}\u180e\u034f]/u;
/**
 * A character that draws something of its own: not whitespace, a separator, a blank "filler"
 * letter, or a combining mark (Mn, Mc, Me: alone they mark nothing, e.g. a name of U+0301s).
 */
const VISIBLE = /[^\s\p{Z}\p{M}\u115f\u1160\u3164\uffa0\u2800]/u;

export type TypedTextCheck = { ok: true; text: string } | { ok: false; reason: string };

/**
 * The one rule for typed text; `reason` reads after the field's name ("must …"). Long text
 * (`multiline`) reads a form's CRLF line ends as newlines.
 */
export function checkTypedText(raw: string, rule: { maxChars: number; multiline?: boolean }): TypedTextCheck {
  const input = rule.multiline ? raw.replace(/\r\n?/g, '\n') : raw;
  const forbidden = rule.multiline ? CONTROL_OR_ZERO_WIDTH_IN_LONG_TEXT : CONTROL_OR_ZERO_WIDTH;
  if (forbidden.test(input))
    return {
      ok: false,
      reason: rule.multiline
        ? `must not contain control or zero-width characters (newline and tab are fine)`
        : `must not contain control or zero-width characters`,
    };
  const text = input.trim();
  if (!VISIBLE.test(text)) return { ok: false, reason: `must contain at least one visible character` };
  if ([...text].length > rule.maxChars)
    return { ok: false, reason: `must be at most ${rule.maxChars} characters` };
  return { ok: true, text };
}

export type AgentNameCheck = { ok: true; name: string } | { ok: false; reason: string };

export function checkAgentName(raw: string): AgentNameCheck {
  const checked = checkTypedText(raw, { maxChars: AGENT_NAME_MAX_CHARS });
  return checked.ok ? { ok: true, name: checked.text } : { ok: false, reason: `name ${checked.reason}` };
}
