/** One row of the benchmark table: a figure beside its target, its baseline and the load average. */
export interface BenchRow {
  /** What was measured. */
  figure: string;
  /** The measured value, formatted (e.g. "2,310 req/s"). */
  value: string;
  /** The target, formatted (e.g. "≥ 0.35 × bare Koa = 2,800 req/s"). */
  target: string;
  /** The anchor (or baseline) measured in the same run, when the target is relative to one. */
  baseline?: string;
  /** The figure over its anchor, formatted (e.g. "0.88 ×"), when the target is a ratio. */
  ratio?: string;
  /** true met, false missed, null: informational / not measured. */
  ok: boolean | null;
  /** 1-minute load average when the figure was taken. */
  load: number | null;
  note?: string;
}

export const fmt = (n: number, digits = 0): string =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : 'n/a';

export function renderTable(rows: BenchRow[]): string {
  const header = ['Figure', 'Measured', 'Target', 'Anchor (same run)', 'Ratio', 'Met', 'Load', 'Notes'];
  const lines = rows.map((r) => [
    r.figure,
    r.value,
    r.target,
    r.baseline ?? '',
    r.ratio ?? '',
    r.ok === null ? '–' : r.ok ? 'yes' : 'NO',
    r.load === null ? '' : r.load.toFixed(2),
    r.note ?? '',
  ]);
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...lines.map((l) => `| ${l.map(esc).join(' | ')} |`),
  ].join('\n');
}
