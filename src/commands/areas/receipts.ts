import { z } from 'zod';
import type { Signal, SourceReceipt } from '../../contracts/signals';
import { formatSpan, signalStages } from '../../contracts/timeline';
import { readable } from '../../services/feed/content';
import { oneLine } from '../../services/feed/format';
import { ageLabel, receiptsApi, stageMs, timelineOf } from '../../services/feed/receipt';
import type { FeedSignal } from '../../services/feed/types';
import { firedNote } from '../../services/rules/rules';
import { failure, info, muted, type OutputLine } from '../../services/terminal/output';
import { table } from '../../services/terminal/table';
import { NO_TIME, utcClock } from '../../services/time';
import { defineCommand, type CommandContext, type CompletionProvider } from '../types';

const AREA = 'feed';

const SignalId = z
  .string()
  .regex(/^#?[1-9][0-9]{0,17}$/, { error: 'Give a signal id, e.g. #113 (the id on its card).' })
  .transform((w) => w.replace(/^#/, ''));

/** The ids of the cards in the feed, as the cards show them. */
const cardIds: CompletionProvider = ({ stores }) => stores.feed.signals.peek().map((s) => `#${s.id}`);

/** `14:02:01.200` (UTC), or `—`. */
const clockTime = (iso: string | null | undefined): string =>
  iso === null || iso === undefined ? NO_TIME : utcClock(iso, { ms: true });

/** The signal from the feed, else from the server's history; null when neither has it. */
async function findSignal(
  ctx: CommandContext,
  id: string,
): Promise<{ ok: true; signal: Signal; reached?: number } | { ok: false; message: string }> {
  const inFeed: FeedSignal | undefined = ctx.stores.feed.signals.peek().find((s) => s.id === id);
  if (inFeed !== undefined) return { ok: true, signal: inFeed, reached: inFeed.client_received_at };
  const got = await receiptsApi(ctx.api.main).signal(id);
  if (!got.ok) return got;
  return got.value === null
    ? { ok: false, message: `There is no signal #${id}.` }
    : { ok: true, signal: got.value };
}

/** One line per stage: when it happened (UTC) and how long after the one before, in ms. */
function stageLines(signal: Signal, reached: number | undefined): OutputLine[] {
  const t = timelineOf(signal);
  const stages = signalStages(t, reached);
  const rows: [string, string, string][] = [
    ['published', t.published_at === null ? "the source didn't say" : clockTime(t.published_at), ''],
    ['received', clockTime(t.received_at), stageMs(stages[0]?.ms ?? null)],
    ['analysed', clockTime(t.analysed_at), stageMs(stages[1]?.ms ?? null)],
    ['sent', clockTime(t.sent_at), stageMs(stages[2]?.ms ?? null)],
  ];
  if (reached !== undefined)
    rows.push(['reached you', clockTime(new Date(reached).toISOString()), stageMs(stages[3]?.ms ?? null)]);
  return table(
    [{ header: 'STAGE' }, { header: 'AT (UTC)' }, { header: 'TOOK', align: 'right' }],
    rows.map(([name, at, took]) => [name, at, took === '' || took.startsWith('—') ? took : `+${took}`]),
  );
}

export const why = defineCommand({
  name: 'why',
  area: AREA,
  summary:
    "Show a signal's receipt: published, received, analysed, sent and reached you, each stage in ms, and what your rules did with it.",
  usage: 'why <id>',
  examples: ['why #113', 'why 113'],
  args: z.object({ id: SignalId.describe('a signal id, e.g. #113 (the id on its card)') }),
  complete: { id: cardIds },
  async run(ctx, { id }) {
    const found = await findSignal(ctx, id);
    if (!found.ok) return [failure(found.message)];
    const { signal, reached } = found;
    const headline = oneLine(readable(signal.content), 90);
    const lines: OutputLine[] = [
      info(`#${signal.id} ${signal.metadata.source_name}: ${headline}`),
      ...stageLines(signal, reached),
    ];
    const age = reached === undefined ? null : ageLabel({ ...signal, client_received_at: reached });
    if (age !== null) lines.push(info(age.charAt(0).toUpperCase() + age.slice(1) + '.'));
    if (signal.backlog === true)
      lines.push(muted("From its source's first poll after start: backlog, never traded."));
    let decisions: unknown = [];
    if (ctx.stores.session.isLoggedIn.peek()) {
      const got = await receiptsApi(ctx.api.main).decisions(signal.id);
      if (!got.ok) lines.push(failure(got.message));
      else {
        decisions = got.value;
        for (const d of got.value) lines.push(info(firedNote(d)));
        if (got.value.length === 0) lines.push(muted('None of your rules matched it.'));
      }
    }
    return { lines, data: { signal, decisions } };
  },
});

const span = (ms: number | null): string => (ms === null ? '—' : formatSpan(ms));

export const sources = defineCommand({
  name: 'sources',
  area: AREA,
  summary:
    'List the news sources: lag from publication to arrival (p50/p95 over the last hour), items per hour and the last item’s age.',
  usage: 'sources',
  examples: ['sources'],
  args: z.object({}),
  async run(ctx) {
    const got = await receiptsApi(ctx.api.main).sources();
    if (!got.ok) return [failure(got.message)];
    const { sources: list, threshold_ms } = got.value;
    if (list.length === 0) return { lines: [muted('No news source is configured.')], data: got.value };
    const state = (s: SourceReceipt) => (s.lagging ? 'degraded (lag)' : s.state);
    const lines = table(
      [
        { header: 'SOURCE' },
        { header: 'STATE' },
        { header: 'LAG P50', align: 'right' },
        { header: 'LAG P95', align: 'right' },
        { header: 'ITEMS/H', align: 'right' },
        { header: 'LAST ITEM', align: 'right' },
      ],
      list.map((s) => [
        s.name,
        { text: state(s), style: s.lagging || s.state === 'degraded' ? 'loss' : undefined },
        span(s.lag_p50_ms),
        { text: span(s.lag_p95_ms), style: s.lagging ? 'loss' : undefined },
        String(s.items_per_hour),
        s.last_item_age_ms === null ? 'none yet' : `${formatSpan(s.last_item_age_ms)} ago`,
      ]),
    );
    lines.push(muted(`A source whose p95 lag passes ${formatSpan(threshold_ms)} is degraded in health.`));
    return { lines, data: got.value };
  },
});

export default [why, sources];
