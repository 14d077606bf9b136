import type { Decision } from '../../../src/contracts/rules';
import type { Signal } from '../../../src/contracts/signals';
import { performance } from 'node:perf_hooks';
import { describe as answerText, type Api } from './api';
import { sleep } from './mode';
import { ASSETS, settleItem, type SentItem } from './news';
import { allDecisions, allSignals } from './reads';

/** What a rules run left: every signal, and each user's ledger. */
export interface Snapshot {
  signals: Signal[];
  ledgers: Decision[][];
}

/** What is still to be decided: signals not analysed, and (signal, user, asset) without a final decision. */
export function outstanding({ signals, ledgers }: Snapshot): string[] {
  const missing: string[] = [];
  for (const signal of signals) {
    if (signal.analysis.status !== 'completed') {
      missing.push(`signal ${signal.id} not analysed`);
      continue;
    }
    const traded = ASSETS.filter((a) => signal.assets.includes(a.ticker));
    ledgers.forEach((ledger, user) => {
      for (const asset of traded) {
        const decision = ledger.find((d) => d.signal_id === signal.id && d.asset === asset.ticker);
        if (decision === undefined)
          missing.push(`rules${user}: no decision on ${asset.ticker} for signal ${signal.id}`);
        else if (decision.outcome === 'pending')
          missing.push(`rules${user}: decision ${decision.id} pending`);
      }
    });
  }
  return missing;
}

/**
 * Waits until the engine has caught up after the kills (every signal analysed, every match decided,
 * none pending) or `withinMs` passed; answers what it last read, what is still missing and how long it took.
 */
export async function catchUp(
  webhook: Api,
  users: readonly Api[],
  withinMs: number,
): Promise<{ snapshot: Snapshot; missing: string[]; catchUpMs: number }> {
  const started = performance.now();
  let snapshot: Snapshot = { signals: [], ledgers: [] };
  let missing: string[] = ['not read yet'];
  while (missing.length > 0 && performance.now() - started < withinMs) {
    await sleep(1000);
    snapshot = { signals: await allSignals(webhook), ledgers: await Promise.all(users.map(allDecisions)) };
    missing = outstanding(snapshot);
  }
  return { snapshot, missing, catchUpMs: Math.round(performance.now() - started) };
}

/** Sends again, once, every item whose answer a kill cut (with its external id); answers them. */
export async function resendCut(
  webhook: Api,
  sent: readonly SentItem[],
  problems: string[],
): Promise<SentItem[]> {
  const cut = sent.filter((s) => s.outcome === null);
  for (const s of cut) {
    const answer = await webhook.send('POST', '/signals/ingest', { ...s.item });
    if (!settleItem(s, answer)) problems.push(`retry of ${s.item.external_id}: ${answerText(answer)}`);
  }
  return cut;
}

/** The (rule, signal) pairs decided more than once. */
export function decidedTwice(ledgers: readonly Decision[][]): [string, number][] {
  const pairs = new Map<string, number>();
  for (const d of ledgers.flat())
    pairs.set(`${d.rule_id}|${d.signal_id}`, (pairs.get(`${d.rule_id}|${d.signal_id}`) ?? 0) + 1);
  return [...pairs].filter(([, n]) => n > 1);
}
