/**
 * A secret shown once (src/web/forms.ts): the connector key's expiry beside it, warned when it is
 * near, and the command that uses it as it runs (issue 29).
 */
import { expiryText, shownOnceBlock } from '../../../src/web/forms';

const NOW = new Date('2026-03-01T12:00:00Z');

test('the expiry reads in UTC with the time left; under 2 hours it is a warning', () => {
  expect(expiryText(new Date('2026-03-02T12:00:00Z'), NOW)).toEqual({
    text: 'Expires 2026-03-02 12:00 UTC (in 24 hours)',
    soon: false,
  });
  expect(expiryText(new Date('2026-03-11T12:00:00Z'), NOW).text).toBe(
    'Expires 2026-03-11 12:00 UTC (in 10 days)',
  );
  expect(expiryText(new Date('2026-03-01T12:45:00Z'), NOW)).toEqual({
    text: 'Expires 2026-03-01 12:45 UTC (in 45 minutes)',
    soon: true,
  });
  expect(expiryText(new Date('2026-03-01T11:00:00Z'), NOW)).toEqual({
    text: 'Expired 2026-03-01 11:00 UTC',
    soon: true,
  });
});

test('the shown key carries its expiry and the command, escaped', () => {
  const block = shownOnceBlock({
    what: 'Connector key for <b>Ada</b>',
    secret: 'aa_secret',
    note: 'Start it.',
    expiresAt: new Date(Date.now() + 24 * 3_600_000),
    command: 'CCS_BASE_URL=http://127.0.0.1:4010 CCS_AGENT_KEY=aa_secret npm run -s connector -- run',
  }).toString();
  expect(block).toMatch(
    /<p id="shown-expiry">Expires \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \(in 2[34] hours\)\. Make a new one/,
  );
  expect(block).toContain(
    '<code id="shown-command">CCS_BASE_URL=http://127.0.0.1:4010 CCS_AGENT_KEY=aa_secret npm run -s connector -- run</code>',
  );
  expect(block).toContain('&lt;b&gt;Ada&lt;/b&gt;');
});
