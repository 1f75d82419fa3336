import { type Figure, storedFigure } from './figure.ts';

function format(n: number | undefined): string {
  if (n === undefined) return '';
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 1000) return Math.round(n).toLocaleString('en-US');
  return Number(n.toPrecision(4)).toString();
}

/** Renders figures as a plain-text table: name, value, unit, baseline, ratio. */
export function renderTable(figures: readonly Figure[]): string {
  const rows = [
    ['figure', 'value', 'unit', 'baseline', 'ratio'],
    ...figures.map((f) => {
      const s = storedFigure(f);
      return [f.name, format(s.value), s.unit, format(s.baseline), format(s.ratio)];
    }),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  const line = (r: readonly string[]) =>
    r.map((c, i) => (i === 0 || i === 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)));
  const [header, ...body] = rows.map((r) => line(r).join('  '));
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [header, rule, ...body].join('\n');
}
