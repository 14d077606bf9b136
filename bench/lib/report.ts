/** One figure, printed as one JSON line: `{"bench":"…","metric":"…","value":…,"unit":"…"}`. */
export interface Figure {
  bench: string;
  metric: string;
  value: number;
  unit: string;
}

export function report(bench: string, metric: string, value: number, unit: string): Figure {
  const figure = { bench, metric, value: Number(value.toFixed(3)), unit };
  process.stdout.write(`${JSON.stringify(figure)}\n`);
  return figure;
}
