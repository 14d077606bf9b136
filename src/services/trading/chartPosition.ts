import { computed, type ReadonlySignal } from '@preact/signals-core';
import type { Decision, Rule } from '../../contracts/rules';
import type { Position } from '../../contracts/trading';
import { positionChart, type HoldDeadline, type PositionChart } from './chartLines';

/**
 * Which position the chart draws: the active account's open position on the chart's pair, with the
 * max hold of the rule that opened it (when the ledger says a rule did and its plan is the one the
 * rule still has).
 */

/** The max hold of `decision`'s rule, when the rule as listed is the version that decided. */
export function holdDeadline(decision: Decision | undefined, rules: readonly Rule[]): HoldDeadline | null {
  if (decision === undefined) return null;
  const rule = rules.find((r) => r.id === decision.rule_id);
  const minutes = rule?.action.exit?.max_hold_minutes;
  if (rule === undefined || minutes === undefined || rule.version !== decision.rule_version) return null;
  return { ruleName: decision.rule_name, decidedAt: decision.decided_at, maxHoldMinutes: minutes };
}

/** The chart of the position on `pair` (`BTC/USDT`), or null when the account holds none there. */
export function chartOfPair(
  pair: string,
  positions: readonly Position[],
  openedByRule: ReadonlyMap<string, Decision>,
  account: string,
  rules: readonly Rule[],
): PositionChart | null {
  const position = positions.find((p) => p.symbol === pair && p.size !== 0);
  if (position === undefined) return null;
  const decision = openedByRule.get(`${account} ${pair} ${position.side}`);
  return positionChart(position, holdDeadline(decision, rules));
}

export interface ChartPositionDeps {
  /** The chart's pair, `BTC/USDT`. */
  pair: ReadonlySignal<string>;
  positions: ReadonlySignal<readonly Position[]>;
  openedByRule: ReadonlySignal<ReadonlyMap<string, Decision>>;
  /** The active account (`paper` or a key's id). */
  account: ReadonlySignal<string>;
  rules: ReadonlySignal<readonly Rule[]>;
  loggedIn: ReadonlySignal<boolean>;
}

/** The chart's position, kept live from the positions socket; null when logged out. */
export function chartPositionSignal(deps: ChartPositionDeps): ReadonlySignal<PositionChart | null> {
  return computed(
    () =>
      deps.loggedIn.value
        ? chartOfPair(
            deps.pair.value,
            deps.positions.value,
            deps.openedByRule.value,
            deps.account.value,
            deps.rules.value,
          )
        : null,
    { name: 'chart.position' },
  );
}
