/**
 * Agents' names (DESIGN "Submitting code the way people do"), pure: control or zero-width
 * characters anywhere are refused; then the name is trimmed; then it must be 1–100 characters
 * with at least one visible one. Create, rename and the heartbeat all read this one rule.
 */

export const AGENT_NAME_MAX_CHARS = 100;

/** C0/C1 controls (Cc) and format characters (Cf: zero-width space/joiners, bidi controls, BOM, soft hyphen). */
const CONTROL_OR_ZERO_WIDTH = /[\p{Cc}\p{Cf}\u180e\u034f]/u;
/** Characters that render as nothing: whitespace, separators and the blank "filler" letters. */
const INVISIBLE = /^[\s\p{Z}\u115f\u1160\u3164\uffa0\u2800]*$/u;

export type AgentNameCheck = { ok: true; name: string } | { ok: false; reason: string };

export function checkAgentName(raw: string): AgentNameCheck {
  if (CONTROL_OR_ZERO_WIDTH.test(raw))
    return { ok: false, reason: 'name must not contain control or zero-width characters' };
  const name = raw.trim();
  const length = [...name].length;
  if (length < 1 || INVISIBLE.test(name))
    return { ok: false, reason: 'name must contain at least one visible character' };
  if (length > AGENT_NAME_MAX_CHARS)
    return { ok: false, reason: `name must be at most ${AGENT_NAME_MAX_CHARS} characters` };
  return { ok: true, name };
}
