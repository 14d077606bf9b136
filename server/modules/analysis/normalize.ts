/**
 * Text normalisation and tokenisation shared by the asset tagger, the event rules and the sentiment
 * features. Everything here is a pure function of the text, with no I/O, so it costs microseconds.
 */

export interface Token {
  /** As written, after NFKC (`$SOL`, `Bitcoin`, `-12%`, `$600M`). */
  raw: string;
  /** Lowercased, without a leading `$` or `#`. */
  lower: string;
  /** `$SOL` or `#BTC`. */
  tagged: boolean;
  /** Offset in `NormalizedText.text`. */
  start: number;
}

export interface NormalizedText {
  /** NFKC text with emoji spelt as words and whitespace collapsed; case kept. */
  text: string;
  /** `text` lowercased, for the event rules. */
  lower: string;
  tokens: Token[];
  /** Mostly capital letters ("BREAKING: BITCOIN CRASHES"): capitalisation carries no signal then. */
  shouting: boolean;
}

/** Emoji that carry meaning in crypto posts, spelt as words the rules and the model can read. */
const EMOJI: Record<string, string> = {
  '🚀': ' emo_rocket ',
  '📈': ' emo_chart_up ',
  '📉': ' emo_chart_down ',
  '🚨': ' emo_alert ',
  '⚠': ' emo_warning ',
  '🔥': ' emo_fire ',
  '💀': ' emo_skull ',
  '😱': ' emo_scream ',
  '😬': ' emo_grimace ',
  '😤': ' emo_angry ',
  '😴': ' emo_sleep ',
  '🩸': ' emo_blood ',
  '🟢': ' emo_green ',
  '🔴': ' emo_red ',
  '✅': ' emo_check ',
  '❌': ' emo_cross ',
  '🐋': ' emo_whale ',
  '👀': ' emo_eyes ',
  '💎': ' emo_gem ',
  '🌙': ' emo_moon ',
};
const EMOJI_RE = new RegExp(Object.keys(EMOJI).join('|'), 'gu');

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};

/**
 * A token is a number with its sign, currency and unit (`-12%`, `$1.4B`, `$600 million`), a word with
 * inner dots, dashes or apostrophes (`ether.fi`, `dYdX`, `don't`), optionally behind `$` or `#`, or one
 * of the punctuation marks the rules read: `/ ( ) ? !`.
 */
const TOKEN_RE =
  /[+-]?\$?\d[\d,]*(?:\.\d+)?(?:\s?(?:billion|million|thousand|trillion|bn|[kmbt])(?!\p{L}))?%?(?![\p{L}\p{N}_])|[$#]?[\p{L}\p{N}_]+(?:[.'’][\p{L}\p{N}_]+)*|[/()?!]/giu;

const NUMBER_RE = /^[+-]?\$?\d[\d,]*(?:\.\d+)?(?:\s?(?:billion|million|thousand|trillion|bn|[kmbt]))?%?$/i;

/** `12%`, `$600M`, `-3.5`, `67k`: a number token, as opposed to a word that starts with a digit (`1inch`). */
export const isNumberToken = (t: Token | undefined): boolean => t !== undefined && NUMBER_RE.test(t.raw);

export function normalizeText(raw: string): NormalizedText {
  let text = raw.normalize('NFKC');
  text = text.replace(/&(?:amp|lt|gt|quot|#39);/g, (m) => ENTITIES[m] ?? m);
  text = text.replace(/https?:\/\/\S+/g, ' ');
  text = text.replace(EMOJI_RE, (m) => EMOJI[m] ?? ' ');
  text = text.replace(/\s+/g, ' ').trim();
  const tokens: Token[] = [];
  let upper = 0;
  let letters = 0;
  for (const m of text.matchAll(TOKEN_RE)) {
    const tok = m[0];
    const tagged = (tok[0] === '$' || tok[0] === '#') && /\p{L}/u.test(tok.slice(1));
    const bare = tagged ? tok.slice(1) : tok;
    tokens.push({ raw: tok, lower: bare.toLowerCase(), tagged, start: m.index });
    if (!tok.startsWith('emo_')) {
      for (const ch of bare) {
        if (ch >= 'A' && ch <= 'Z') {
          upper += 1;
          letters += 1;
        } else if (ch >= 'a' && ch <= 'z') letters += 1;
      }
    }
  }
  return { text, lower: text.toLowerCase(), tokens, shouting: letters >= 12 && upper / letters > 0.7 };
}

const UNIT: Record<string, number> = {
  k: 1e3,
  thousand: 1e3,
  m: 1e6,
  mn: 1e6,
  mln: 1e6,
  mil: 1e6,
  million: 1e6,
  b: 1e9,
  bn: 1e9,
  billion: 1e9,
  t: 1e12,
  trillion: 1e12,
};

/** Currencies read as dollars: the dollar's stablecoins, and the euro and the pound (near enough for a log scale). */
const DOLLAR_WORDS = 'usd|dollars?|usdt|usdc|usde|dai|fdusd|pyusd|eur|euros?|gbp|pounds?';

/**
 * The largest dollar amount in the text (`$600M`, `US$1.4 billion`, `(670,542,185 USD)`, `1.2 bn USD`,
 * `12.4m USDC`, `€45 million`, `230k dollars`), or 0. Other currencies (`¥48.2 billion`, `2 bn yen`)
 * are not dollars and count only through a dollar figure beside them.
 */
export function largestUsdAmount(text: string): number {
  let best = 0;
  const unit = 'billion|million|thousand|trillion|bn|mn|mln|mil|[kmbt]';
  const re = new RegExp(
    `[$€£]\\s?(\\d[\\d,]*(?:\\.\\d+)?)\\s?(${unit})?\\b|(\\d[\\d,]*(?:\\.\\d+)?)\\s?(${unit})?\\s?(?:${DOLLAR_WORDS})\\b`,
    'gi',
  );
  for (const m of text.matchAll(re)) {
    const num = Number((m[1] ?? m[3] ?? '0').replace(/,/g, ''));
    const u = (m[2] ?? m[4] ?? '').toLowerCase();
    const value = num * (UNIT[u] ?? 1);
    if (Number.isFinite(value) && value > best) best = value;
  }
  return best;
}

/** Signed percentages in the text ("+12%", "down 8%", "-9%", "drops 15%"), as numbers. */
export function signedPercents(lower: string): number[] {
  const out: number[] = [];
  const re =
    /(?:(up|down|gains?|loses?|drops?|falls?|slides?|jumps?|surges?|soars?|rises?|plunges?|tumbles?|sinks?|climbs?|rallies|rips?|pumps?|dumps?|nuked|wicks down|slips?)\s+(?:by\s+)?)?([+-])?(\d+(?:\.\d+)?)%/g;
  for (const m of lower.matchAll(re)) {
    const value = Number(m[3]);
    const word = m[1] ?? '';
    const down =
      m[2] === '-' ||
      /^(down|loses?|drops?|falls?|slides?|plunges?|tumbles?|sinks?|dumps?|nuked|wicks down|slips?)$/.test(
        word,
      );
    const up =
      m[2] === '+' || /^(up|gains?|jumps?|surges?|soars?|rises?|climbs?|rallies|rips?|pumps?)$/.test(word);
    if (down) out.push(-value);
    else if (up) out.push(value);
  }
  return out;
}
