/**
 * Retractions: an item that denies, corrects or withdraws an earlier story, or says the account that
 * posted it was hacked. `retractionCue` reads the text alone (it runs at admission, so that a denial is
 * never clustered into the story it denies); `findRetracted` links an analysed retraction to the recent
 * story it takes back: same assets or the same account, and words of the claim in common.
 */
import type { RetractionKind } from '../../../src/contracts/signals';
import { sourceAuthority, type Authority } from '../analysis/impact';
import { storyKey } from './cluster';

export interface RetractionCue {
  kind: RetractionKind;
  /** The words that made it one, as written. */
  phrase: string;
}

/** What a regulator or a court may deny that is news of its own, not a denial of a report. */
const DENIED_THING =
  'applications?|requests?|petitions?|motions?|appeals?|bail|exemptions?|licen[cs]es?|registrations?|' +
  'proposals?|bids?|permits?|access|entry|charges?|allegations? of|wrongdoing|fraud|guilt|liability|' +
  'claims? (?:by|from|of) (?:a |the )?(?:former|ex-)';
const THING = 'report|story|article|headline|post|tweet|announcement|statement|notice|news|claim|rumou?r';
const ACCOUNT =
  '(?:x|twitter|telegram|discord|instagram|social media|official)?\\s*(?:account|handle|profile|channel|page)';
const ACT =
  'file|filed|submit|submitted|approve|approved|authori[sz]e|authori[sz]ed|sign|signed|announce|announced|' +
  'partner|partnered|list|listed|invest|invested|agree|agreed|sell|sold|buy|bought|launch|launched|' +
  'vote|voted|dismiss|dismissed|integrate|integrated|add|added|accept|accepted';

const CUES: readonly [RetractionKind, RegExp][] = [
  [
    'compromised',
    new RegExp(
      `\\b${ACCOUNT}s?\\b[^.;!?]{0,40}?\\b(?:was|were|is|has been|have been|had been|got|been)\\s+` +
        '(?:briefly |temporarily |also )?(?:hacked|compromised|hijacked|breached|taken over|accessed by)',
    ),
  ],
  ['compromised', new RegExp(`\\b(?:hacked|compromised|hijacked) ${ACCOUNT}s?\\b`)],
  [
    'compromised',
    /\bunauthori[sz]ed (?:post|tweet|message|announcement|statement|access|party|parties|individual|user|person|third part(?:y|ies))/,
  ],
  [
    'compromised',
    /\b(?:post|tweet|message|announcement|statement)s? (?:was|were|is|are) (?:not authori[sz]ed|unauthori[sz]ed|not (?:posted|made|sent|written) by us)/,
  ],
  ['compromised', /\bimpersonat(?:or|ing) account\b|\bparody account\b/],
  ['correction', /^\W*(?:correction|corrected|clarification)\b/],
  [
    'correction',
    new RegExp(
      `\\b(?:corrects?|corrected|correction to) (?:an? |the |its |our |their )?(?:earlier |previous |prior )?(?:${THING})`,
    ),
  ],
  [
    'correction',
    /\b(?:incorrectly|wrongly|erroneously|mistakenly) (?:reported|stated|said|announced|published|posted|claimed)\b|\b(?:published|posted|sent|issued) in error\b|\bmis(?:stated|reported|read)\b|\bregret the error\b/,
  ],
  [
    'withdrawal',
    new RegExp(
      `\\b(?:retract(?:s|ed|ing|ion)?|withdr(?:aw|aws|ew|awn)|deleted|removed|took down|taken down|pulled)\\b (?:the |its |their |his |her |our |an? |this |that )?(?:earlier |previous |original |prior )?(?:${THING})`,
    ),
  ],
  [
    'withdrawal',
    new RegExp(
      `\\b(?:${THING})s? (?:has been|have been|was|were|is being) (?:deleted|removed|taken down|pulled|withdrawn|retracted)`,
    ),
  ],
  [
    'withdrawal',
    /\b(?:walks?|walked) back\b|\brescind(?:s|ed)?\b|\b(?:please )?disregard\b|\bignore (?:the|our|this|that|my) (?:previous|earlier|last)\b|\bdeleted\.$/,
  ],
  [
    'denial',
    new RegExp(
      `\\b(?:den(?:y|ies|ied|ying)|refut(?:e|es|ed|ing)|disavow(?:s|ed)?)\\b(?! (?:(?:the |its |a |an |[\\w'’]+ ){0,3})(?:${DENIED_THING})\\b)`,
    ),
  ],
  [
    'denial',
    /\b(?:not|isn't|wasn't) (?:true|accurate|correct|legitimate|genuine|real)\b|\buntrue\b|\binaccurate\b/,
  ],
  [
    'denial',
    new RegExp(
      `\\b(?:false|fake|fraudulent|bogus|fabricated|doctored|forged|baseless|unfounded|speculative) (?:${THING}|filing|registration|document|press release|screenshot|letter)s?\\b`,
    ),
  ],
  [
    'denial',
    /\b(?:is|was|are|were|it's|call(?:s|ed|ing)? (?:it|them|(?:the |this |that |these )?[\w-]+(?: [\w-]+){0,2}?)) (?:completely |entirely |totally |simply )?(?:false|fake|fraudulent|forged|bogus|fabricated|a hoax|baseless|unfounded|speculation|wrong|misleading)\b/,
  ],
  ['denial', /\bfake news\b|\bmisinformation\b|\bdisinformation\b|\bhoax\b/],
  [
    'denial',
    new RegExp(
      `\\b(?:did not|didn't|has not|hasn't|have not|haven't|had not|never|does not|doesn't) (?:yet )?(?:been )?(?:${ACT})\\b`,
    ),
  ],
  ['denial', /\b(?:no|not any) (?:plans?|intention) to\b|\bhas no plans?\b|\bhave no plans?\b/],
  [
    'denial',
    /\b(?:was|were|is|are|has|have) not (?:been )?(?:made|filed|submitted|issued|registered|authori[sz]ed|posted|sent|published|written|signed|approved) by (?:us|the (?:firm|company|agency|exchange|foundation|team|project)|it|them)\b/,
  ],
  [
    'denial',
    /\bno (?:such )?(?:partnership|investment|agreement|deal|filing|listing|plans?|burn) (?:with|in|has been|was|planned|for|exists)\b|\bnot (?:affiliated|associated) with\b|\bnot from (?:us|binance|the company)\b|\b(?:is|was) not (?:ours|theirs)\b|\bnot (?:being )?(?:added|listed|approved)\b/,
  ],
  [
    'denial',
    new RegExp(
      `\\b(?:dismiss(?:es|ed)?|reject(?:s|ed)?|pushes back on|pushed back on|shoots? down|shot down) (?:the |these |those |recent )?(?:${THING})s?\\b`,
    ),
  ],
];

/** The retraction the text reads as, or null: the first cue found, the strongest kinds first. */
export function retractionCue(content: string): RetractionCue | null {
  const text = content.toLowerCase().replace(/[’‘]/g, "'").replace(/\s+/g, ' ').trim();
  for (const [kind, pattern] of CUES) {
    const match = pattern.exec(text);
    if (match !== null) return { kind, phrase: match[0].trim() };
  }
  return null;
}

/** A stored story that might be the one retracted. */
export interface RetractionCandidate {
  id: number;
  content: string;
  sourceName: string;
  username: string | null;
  assets: readonly string[];
  receivedAt: number;
}

/** The analysed retraction looking for its story. */
export interface RetractingItem {
  content: string;
  sourceName: string;
  username: string | null;
  assets: readonly string[];
  receivedAt: number;
  kind: RetractionKind;
}

/** How far back a retraction looks for its story. */
export const RETRACTION_WINDOW_MS = 24 * 3600_000;

/** Stems of the words that say "this is a retraction" or name a kind of post: no part of a claim. */
const CUE_STEMS = new Set(
  (
    'deni deny refut false fake true untrue inaccurate correct correction incorrect incorrectly wrong wrongly ' +
    'erroneously retract retraction withdraw withdrawn remov delet account hack hacked compromis hijack ' +
    'unauthoriz unauthorized unauthorised post tweet claim rumor rumour news not no never plan did didn ' +
    'has have statement notice announcement publish error mistake spokesperson comment misinformation ' +
    'disregard ignore earlier previou prior legitimate link click said told circulat share social media ' +
    'official only trust site check x twitter telegram calling call speculation speculative misread'
  ).split(' '),
);

function claimWords(content: string, extra: readonly (string | null)[]): Set<string> {
  const out = new Set<string>();
  for (const w of storyKey(content).words) if (!CUE_STEMS.has(w) && !/^\d$/.test(w)) out.add(w);
  for (const e of extra) if (e !== null && e !== '') out.add(e.toLowerCase());
  return out;
}

const handle = (s: string | null) => (s === null ? null : s.toLowerCase().replace(/^@/, ''));

/**
 * The account of `c` posted `item`, or `item` names it: `@SECGov` or "SECGov" in the text, or a name or
 * acronym the handle starts with ("the SEC's X account" for @SECGov).
 */
function sameAccount(item: RetractingItem, c: RetractionCandidate, itemWords: ReadonlySet<string>): boolean {
  const account = handle(c.username);
  if (account === null || account.length < 3) return false;
  if (handle(item.username) === account || itemWords.has(account)) return true;
  for (const key of storyKey(item.content).keys) {
    const name = key.replace(/^@/, '');
    if (name.length >= 3 && /^[a-z]/.test(name) && account.startsWith(name)) return true;
  }
  return false;
}

export interface RetractionLink {
  id: number;
  score: number;
}

/**
 * The story `item` retracts among `candidates`, or null. A story qualifies when it arrived within the
 * window before the item and either shares an asset with it or was posted by the account the item
 * speaks for; it must also share words of the claim (a denial that names only the coin retracts
 * nothing). The best score wins, the newest on a tie.
 */
export function findRetracted(
  item: RetractingItem,
  candidates: readonly RetractionCandidate[],
  windowMs = RETRACTION_WINDOW_MS,
): RetractionLink | null {
  const itemWords = claimWords(item.content, [item.username]);
  const itemAssets = new Set(item.assets);
  let best: RetractionLink | null = null;
  let bestAt = -Infinity;
  for (const c of candidates) {
    if (c.receivedAt > item.receivedAt || c.receivedAt < item.receivedAt - windowMs) continue;
    const account = sameAccount(item, c, itemWords);
    const sharedAssets = c.assets.filter((a) => itemAssets.has(a));
    if (!account && itemAssets.size > 0 && c.assets.length > 0 && sharedAssets.length === 0) continue;
    const tickers = new Set(sharedAssets.map((a) => a.toLowerCase()));
    let shared = 0;
    for (const w of claimWords(c.content, [c.username])) if (itemWords.has(w) && !tickers.has(w)) shared += 1;
    const accountWeight = account ? (item.kind === 'denial' ? 2 : 3) : 0;
    const score = accountWeight + (sharedAssets.length > 0 ? 1 : 0) + Math.min(shared, 5);
    const enough =
      score >= 3 && (sharedAssets.length > 0 || account || shared >= 3) && (account || shared >= 1);
    if (!enough) continue;
    if (best === null || score > best.score || (score === best.score && c.receivedAt > bestAt)) {
      best = { id: c.id, score };
      bestAt = c.receivedAt;
    }
  }
  return best;
}

/**
 * How far a source is trusted to take a story back: an exchange's own notice, then a major outlet or a
 * regulator's release, then an on-chain data feed; a tweet, a chat or a name the table does not know
 * come last.
 */
const TRUST: Record<Authority, number> = { exchange: 4, outlet: 3, data: 2, unknown: 1, social: 1 };

/** What decides whether a retraction takes its story back outright: who posted each. */
export interface Poster {
  sourceName: string;
  username: string | null;
  content: string;
}

/**
 * Whether `retraction` retracts `story` outright (positions on it are closed at once): it comes from the
 * same source, or from the account the story came from or names, or from a source trusted at least as
 * much. Otherwise it only disputes the story: the card says so and the traders are asked, nothing is
 * closed for them. The text naming an account is not enough: anyone can write "@SECGov says".
 */
export function retractsOutright(retraction: Poster, story: Poster): boolean {
  if (retraction.sourceName.trim().toLowerCase() === story.sourceName.trim().toLowerCase()) return true;
  const own = handle(retraction.username);
  if (own !== null && own.length >= 3) {
    if (own === handle(story.username)) return true;
    const named = storyKey(story.content);
    if (named.words.has(own) || named.keys.has(own) || named.keys.has(`@${own}`)) return true;
  }
  return TRUST[sourceAuthority(retraction.sourceName)] >= TRUST[sourceAuthority(story.sourceName)];
}
