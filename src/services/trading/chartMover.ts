import { signal, type ReadonlySignal } from '@preact/signals-core';
import type { OutputLine } from '../terminal/output';
import type { PositionChart } from './chartLines';
import {
  MOVE_DETAILS,
  ghostText,
  moveCommand,
  moveQuestion,
  roundPrice,
  type MovableKind,
} from './chartDrag';
import type { Dialogs } from './dialogs';

/**
 * A stop or target dragged on the chart: the ghost line that follows the pointer, the confirm on
 * release, and the terminal's `protect` line that moves it (so its answer is printed there). A refused
 * move leaves the line where it was and says the server's words on the chart.
 */

export interface Ghost {
  kind: MovableKind;
  /** Where the leg was: the line snaps back there unless the move goes through. */
  from: number;
  /** Where it would go, at the chart's precision. */
  price: number;
  /** `SL 94,120.00 (−2.1 %)`. */
  text: string;
}

export interface ChartMover {
  readonly ghost: ReadonlySignal<Ghost | null>;
  /** A move being confirmed or sent: no other drag starts. */
  readonly busy: ReadonlySignal<boolean>;
  /** The last refusal (the server's message), until the next drag. */
  readonly refusal: ReadonlySignal<string | null>;
  /** Takes the stop or target line; false when it cannot be taken now. */
  start(kind: MovableKind): boolean;
  /** The pointer is at `price`. */
  follow(price: number | null): void;
  /** Drops the drag (Esc, the pointer lost): the line stays where it was. */
  cancel(): void;
  /** Asks, then moves the leg through the terminal; answers whether it moved. */
  release(): Promise<boolean>;
  /** Forgets the refusal shown. */
  dismiss(): void;
}

export interface ChartMoverDeps {
  position: ReadonlySignal<PositionChart | null>;
  /** Decimals of the chart's price scale. */
  precision: () => number;
  dialogs: Dialogs;
  /** Runs a command line as the terminal would and prints its answer there. */
  execute: (line: string) => Promise<OutputLine[]>;
  now: () => number;
}

const LEG_NAME = { sl: 'stop', tp: 'target' } as const;

export function createChartMover(deps: ChartMoverDeps): ChartMover {
  const ghost = signal<Ghost | null>(null, { name: 'chartMover.ghost' });
  const busy = signal(false, { name: 'chartMover.busy' });
  const refusal = signal<string | null>(null, { name: 'chartMover.refusal' });

  const ask = (chart: PositionChart, g: Ghost, precision: number): Promise<boolean> =>
    Promise.resolve(
      deps.dialogs.confirm(moveQuestion(g.kind, g.price, chart.entry, precision), {
        title: `Move the ${LEG_NAME[g.kind]} of ${chart.symbol}`,
        details: [MOVE_DETAILS.keys, MOVE_DETAILS.kept],
        confirmLabel: `Move ${LEG_NAME[g.kind]}`,
        enterConfirms: true,
      }),
    );

  const send = async (chart: PositionChart, g: Ghost, precision: number): Promise<boolean> => {
    const ticker = chart.symbol.split('/')[0] ?? chart.symbol;
    const line = moveCommand(ticker, chart.protection, g.kind, g.price, precision, deps.now());
    const output = await deps.execute(line);
    const refused = output.find((l) => l.tone === 'error');
    refusal.value = refused === undefined ? null : refused.text;
    return refused === undefined;
  };

  return {
    ghost,
    busy,
    refusal,
    start(kind) {
      const line = deps.position.peek()?.lines.find((l) => l.kind === kind && l.draggable);
      if (busy.peek() || line === undefined) return false;
      refusal.value = null;
      const chart = deps.position.peek();
      const text = ghostText(kind, line.price, chart?.entry ?? line.price, deps.precision());
      ghost.value = { kind, from: line.price, price: line.price, text };
      return true;
    },
    follow(price) {
      const g = ghost.peek();
      const chart = deps.position.peek();
      if (g === null || busy.peek() || chart === null || price === null || !(price > 0)) return;
      const precision = deps.precision();
      const at = roundPrice(price, precision);
      ghost.value = { ...g, price: at, text: ghostText(g.kind, at, chart.entry, precision) };
    },
    cancel() {
      if (!busy.peek()) ghost.value = null;
    },
    async release() {
      const g = ghost.peek();
      const chart = deps.position.peek();
      if (g === null || busy.peek()) return false;
      if (chart === null || g.price === g.from) {
        ghost.value = null;
        return false;
      }
      busy.value = true;
      try {
        const precision = deps.precision();
        return (await ask(chart, g, precision)) && (await send(chart, g, precision));
      } finally {
        busy.value = false;
        ghost.value = null;
      }
    },
    dismiss() {
      refusal.value = null;
    },
  };
}
