import type { EventType } from '../../../src/contracts/analysis';
import { EVENT_RULES } from './event-rules';
import { signedPercents, type NormalizedText } from './normalize';

/** What the rules found in one item. */
export interface EventMatch {
  type: EventType;
  /** Direction for holders of the tagged assets: +1 up, -1 down, 0 none, after negation and delays. */
  dir: -1 | 0 | 1;
  /** Confident enough to override the sentiment model. */
  confident: boolean;
  hedged: boolean;
  denied: boolean;
  delayed: boolean;
  /** The words that named the event, as written ("Will List", "drained"), or '' for `other`. */
  phrase: string;
}

/** "reportedly", "rumour", "considering", "may", a question: the event may not happen (docs/labelling.md §2). */
const HEDGE =
  /\breportedly\b|\brumou?r\w*|\bsources?(?: say|:)|\bconsidering\b|\bweighs?\b|\bin talks\b|\bmay\b|\bmight\b|\bcould\b|\bplans? to\b|\bexpected to\b|\bspeculat\w+|\bunconfirmed\b|\ballegedly\b|\bif true\b|\bhints?\b|\bpreparing\b|\?\?|\?$|\bheard from\b|\btake it with salt\b|\bincoming\?|\bproposes\b|\bdraft (?:shows|law|bill|rules?)\b/;

/** "denies", "fake", "no funds lost": the event did not happen. */
const DENIAL =
  /\bden(?:y|ies|ied)\b|\bfalse\b|\bdebunk\w*|\bnot true\b|\b(?:is|was|are|were|be) (?:a )?fake\b|\bfake (?:screenshot|news|headline|report)|\bno plans\b|\bnot happening\b|\bno (?:user |customer |holder )?funds (?:were )?(?:lost|at risk)\b|\bfunds (?:are )?safe\b|\bsays no\b|\bsafu\b|\bnot (?:affected|compromised)\b|\bwas not compromised\b|\bunaffected\b|\bnever (?:at risk|been hacked)\b|\bposed no risk\b|\bno exploit\b|\bcontrary to\b|\bwere frozen\b|\bno partnership\b|\bnope\b|\bnot a (?:sale|depeg)\b|\bno risk\b|\bno plans to\b|\bnot affected\b|\bnot adding\b|\bnot happening\b|\bbalances were affected\b|\bwere never at risk\b|\bno holder balances\b/;

/**
 * A regulator or court refusing a request ("denies the application", "motion to dismiss is denied") is an
 * event of its own, not a denial of the news: these phrases are left out before DENIAL is read.
 */
const REFUSAL =
  /\b(?:motion|request|application|petition|bid|appeal)s?\b[^.;]{0,40}\bden(?:y|ies|ied)\b|\bden(?:y|ies|ied)\b (?:the |a |an |its |their )?(?:\w+ )?(?:requests?|applications?|approval|bids?|motions?|petitions?|proposals?|registration|licen[cs]e)\b/g;

/** Trader advice and chatter ("don't chase", "take profits"): no news, whatever the price words say. */
const ADVICE =
  /\b(?:do not|don'?t|never) chase\b|\b(?:reminder to|remember to) take profits?\b|\bwait for the retest\b|\bno leverage today\b/;

/** Macro phrases read by their sum, as one item often has both ("holds rates, signals two cuts"). */
const MACRO_POS =
  /\bcuts?\b(?! bets)|\bcool\w*|\bbelow (?:forecasts?|estimates|expectations)\b|\bdovish\b|\bstimulus\b|\brall\w*|\byields ease\b|\bsmaller-than-expected\b|\baverted\b|\bend of quantitative tightening\b|\bqt end\w*|\btrade deal\b|\bdollar index falls\b|\bequities rise\b|\bfalls? to [\d.]+%, near\b/g;
const MACRO_NEG =
  /\bhik\w*|\braises? rates\b|\bhot(?:ter)?\b|\bhawkish\b|\bno hurry\b|\bpared\b|\bdollar strengthens\b|\byields? (?:rise|climb|jump|spike)\w*|\byield climbs\b|\btumble\w*|\bslides?\b|\bunwind\w*|\brecession\b|\bstandoff\b|\btariffs? [^.;]{0,30}raised\b|\bpressures?\b|\bdisappoint\w*|\bdrops to the lowest\b|\bjumps \d+% after supply\b|\bpare[sd]?\b|\bsinks?\b|\b(?:inflation|prices?|cpi|ppi|pce)\b[^.;]{0,20}\b(?:jump|rise|rose|climb|accelerat|surge)\w*/g;

/** "delays", "postponed", "pushed back": a scheduled event moved later. */
const DELAY =
  /\bdelay\w*|\bpostpone\w*|\bpushed (?:back|to|out)\b|\bextends? review\b|\bpush(?:es|ed)?\b[^.;]{0,30}\b(?:back|again|next year)\b/;

/**
 * The way back from a bad event: recovered or returned funds, reopened withdrawals, a restarted chain,
 * creditors paid. A hack, halt, insolvency, depeg or outage read with one of these is good news.
 */
const RECOVERY =
  /\brecover(?:s|ed|ing)?\b|\breimburs\w*|\brefund\w*|\brelaunch\w*|\bresum\w*|\breopen\w*|\brestor\w*|\bback (?:up|online|to normal|to \$?1)\b|\blifts?\b|\blifted\b|\bregains?\b|\bfully covered\b|\bcovered (?:all |user |customer )?losses\b|\breturn(?:s|ed)? (?:the |all |most )?(?:\$[\d.]+\w* )?(?:stolen )?funds\b|\breturned the \$|\b(?:attacker|exploiter|hacker)'?s? funds (?:are|were) frozen\b|\bblocks (?:are being produced )?again\b|\bworking again\b|\bpatched\b|\breceiv\w+ (?:their )?(?:first )?(?:distributions?|repayments?|payouts?)\b|\bget back \d|\brepay all\b|\brepayments? within\b|\bexit chapter 11\b|\bemerg\w+ from bankruptcy\b|\bbounty\b|\bfunds back\b|\breturned so far\b|\bback to (?:its |the )?peg\b|\bis back\b/;
const RECOVERABLE: ReadonlySet<EventType> = new Set([
  'hack',
  'withdrawals_halted',
  'insolvency',
  'depeg',
  'outage',
]);

/** Events whose delay is bad news for holders; a delayed unlock or delisting is good news. */
const POSITIVE_EVENTS: ReadonlySet<EventType> = new Set([
  'listing',
  'upgrade',
  'partnership',
  'adoption',
  'fundraise',
]);
const NEGATIVE_EVENTS: ReadonlySet<EventType> = new Set(['unlock', 'delisting']);

function originalSlice(text: NormalizedText, m: RegExpExecArray): string {
  const raw = text.text.length === text.lower.length ? text.text : text.lower;
  return raw.slice(m.index, m.index + m[0].length).trim();
}

export function detectEvent(text: NormalizedText): EventMatch {
  const lower = text.lower;
  const hedged = HEDGE.test(lower);
  const denied = DENIAL.test(lower.replace(REFUSAL, ' '));
  const delayed = DELAY.test(lower);
  for (const rule of EVENT_RULES) {
    const m = rule.trigger.exec(lower);
    if (!m || rule.unless?.test(lower)) continue;
    let dir: -1 | 0 | 1 = rule.dir;
    let explicit = false;
    let neutralHit = false;
    if (rule.neutral?.test(lower)) {
      dir = 0;
      explicit = true;
      neutralHit = true;
    } else if (rule.negFirst?.test(lower)) {
      dir = -1;
      explicit = true;
    } else if (rule.pos?.test(lower)) {
      dir = 1;
      explicit = true;
    } else if (rule.neg?.test(lower)) {
      dir = -1;
      explicit = true;
    }
    if (rule.type === 'macro' && !rule.neutral?.test(lower) && !rule.negFirst?.test(lower)) {
      const score = (lower.match(MACRO_POS)?.length ?? 0) - (lower.match(MACRO_NEG)?.length ?? 0);
      if (score !== 0) {
        dir = score > 0 ? 1 : -1;
        explicit = true;
      }
    }
    if (rule.type === 'price' && ADVICE.test(lower)) {
      return { type: 'other', dir: 0, confident: true, hedged, denied, delayed, phrase: '' };
    }
    if (rule.type === 'price' && !explicit) {
      const pcts = signedPercents(lower);
      const sum = pcts.reduce((a, b) => a + b, 0);
      // "up 0.3%, down 0.2%, repeat": moves both ways are no direction.
      const mixed = pcts.some((p) => p > 0) && pcts.some((p) => p < 0);
      dir = mixed || sum === 0 ? 0 : sum > 0 ? 1 : -1;
    }
    // A rule that reads its direction from the words ("completes", "little changed") is sure of it.
    const sure = rule.strongWhenExplicit === true && explicit && (rule.sureOnlyWith?.test(lower) ?? true);
    let confident =
      (rule.strong || (rule.type === 'macro' && explicit) || sure) &&
      (dir !== 0 || (sure && neutralHit)) &&
      !hedged;
    if (delayed && rule.type !== 'etf' && rule.type !== 'macro') {
      if (POSITIVE_EVENTS.has(rule.type)) dir = -1;
      else if (NEGATIVE_EVENTS.has(rule.type)) dir = 1;
    }
    if (RECOVERABLE.has(rule.type) && dir === -1 && RECOVERY.test(lower) && !denied) {
      dir = 1;
      confident = !hedged;
    }
    if (denied) {
      // A denied good event removes an expected gain; a denied bad event leaves no direction (docs/labelling.md §2).
      dir = rule.dir === 1 || dir === 1 ? -1 : 0;
      confident = !hedged;
    }
    return { type: rule.type, dir, confident, hedged, denied, delayed, phrase: originalSlice(text, m) };
  }
  return { type: 'other', dir: 0, confident: ADVICE.test(lower), hedged, denied, delayed, phrase: '' };
}
