// Times in the browser's own zone, with the UTC ISO instant on hover.

/** Local date and time, UTC ISO in the title. */
export function Time(props: { iso: string }) {
  const d = new Date(props.iso);
  if (Number.isNaN(d.getTime())) return <span>{props.iso}</span>;
  return (
    <time dateTime={d.toISOString()} title={`${d.toISOString()} (UTC)`}>
      {d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' })}
    </time>
  );
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];

/** "in 14 minutes", "3 hours ago". */
export function relative(iso: string, now = Date.now()): string {
  const diff = new Date(iso).getTime() - now;
  if (Number.isNaN(diff)) return iso;
  const fmt = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, ms] of UNITS)
    if (Math.abs(diff) >= ms || unit === 'second') return fmt.format(Math.round(diff / ms), unit);
  return iso;
}
