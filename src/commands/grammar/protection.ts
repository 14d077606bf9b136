import { ProtectionInput } from '../../contracts/protection';

/**
 * The protection words of the command prompt, after an order's amount (`btc long 500 sl 2% tp 5%`) or
 * after `protect <asset>`: `sl` and `tp` take a percent of the entry price (`2%`) or a price (`98000`,
 * `98k`), `trail` a callback percent (`1%`), `exit` a time after which the position is closed (`30m`,
 * `2h`, `1d`). Each at most once, in any order. The ranges are the wire contract's
 * ({@link ProtectionInput}), so the prompt refuses what the server would, in the same words.
 */

export const PROTECTION_KEYWORDS = ['sl', 'tp', 'trail', 'exit'] as const;
export type ProtectionKeyword = (typeof PROTECTION_KEYWORDS)[number];

/** The word `protect <asset> off` takes to remove a position's protection. */
export const PROTECTION_OFF = 'off';

const NAMES: Record<ProtectionKeyword, string> = {
  sl: 'stop loss',
  tp: 'take profit',
  trail: 'trailing stop',
  exit: 'exit time',
};

const FORMS: Record<ProtectionKeyword, string> = {
  sl: 'Use a percent (sl 2%) or a price (sl 98000).',
  tp: 'Use a percent (tp 5%) or a price (tp 105000).',
  trail: 'Use a percent (trail 1%).',
  exit: 'Use minutes, hours or days (exit 30m, exit 2h, exit 1d).',
};

export const PROTECTION_MESSAGES = {
  option: (word: string) => `Invalid order option: '${word}'. Add sl, tp, trail or exit after the amount.`,
  word: (word: string) => `Invalid protection: '${word}'. Use sl, tp, trail or exit (or off).`,
  missing: (keyword: ProtectionKeyword) => `Missing value after '${keyword}'. ${FORMS[keyword]}`,
  value: (keyword: ProtectionKeyword, word: string) =>
    `Invalid ${NAMES[keyword]}: '${word}'. ${FORMS[keyword]}`,
  twice: (keyword: ProtectionKeyword) => `'${keyword}' is given twice.`,
  empty: 'Say what protects the position: sl, tp, trail or exit (or off to remove its protection).',
  off: "'off' stands alone: protect btc off.",
} as const;

export type ProtectionParse = { ok: true; protection: ProtectionInput } | { ok: false; message: string };

/** True when a word starts a protection leg (`sl`, `tp`, `trail`, `exit`, any case). */
export function isProtectionWord(word: string | undefined): boolean {
  return word !== undefined && (PROTECTION_KEYWORDS as readonly string[]).includes(word.toLowerCase());
}

/** `2%` → a percent, `98000` or `98.5k` → a price; null for anything else. */
export function readLevel(word: string): { pct: number } | { price: number } | null {
  const match = /^(\d+(?:\.\d+)?|\.\d+)(k?)(%?)$/i.exec(word);
  if (match === null || (match[2] !== '' && match[3] !== '')) return null;
  const value = Number(match[1]) * (match[2] === '' ? 1 : 1000);
  if (!Number.isFinite(value)) return null;
  return match[3] === '%' ? { pct: value } : { price: Math.round(value * 1e8) / 1e8 };
}

const MINUTES = { m: 1, h: 60, d: 1440 } as const;

/** `30m` → 30, `2h` → 120, `1d` → 1440, `1.5h` → 90; null for anything else (a bare number included). */
export function readDuration(word: string): number | null {
  const match = /^(\d+(?:\.\d+)?|\.\d+)([mhd])$/i.exec(word);
  if (match === null) return null;
  const unit = (match[2] ?? 'm').toLowerCase() as keyof typeof MINUTES;
  const minutes = Number(match[1]) * MINUTES[unit];
  return Number.isFinite(minutes) ? Math.round(minutes * 1e6) / 1e6 : null;
}

type Draft = Record<string, number>;

function readLeg(keyword: ProtectionKeyword, word: string, draft: Draft): string | null {
  if (keyword === 'exit') {
    const minutes = readDuration(word);
    if (minutes === null) return PROTECTION_MESSAGES.value(keyword, word);
    draft.exit_after_min = minutes;
    return null;
  }
  const level = readLevel(word);
  if (level === null) return PROTECTION_MESSAGES.value(keyword, word);
  if (keyword === 'trail') {
    if (!('pct' in level)) return PROTECTION_MESSAGES.value(keyword, word);
    draft.trailing_pct = level.pct;
    return null;
  }
  const field = keyword === 'sl' ? 'stop_loss' : 'take_profit';
  if ('pct' in level) draft[`${field}_pct`] = level.pct;
  else draft[`${field}_price`] = level.price;
  return null;
}

/**
 * Reads protection words (`sl 2% tp 105000 trail 1% exit 30m`). `unknown` words the message for a
 * word that starts no leg (after an order's amount, or after `protect <asset>`).
 */
export function parseProtectionWords(
  words: readonly string[],
  unknown: (word: string) => string = PROTECTION_MESSAGES.option,
): ProtectionParse {
  const draft: Draft = {};
  const seen = new Set<ProtectionKeyword>();
  for (let i = 0; i < words.length; i += 2) {
    const word = words[i] ?? '';
    if (!isProtectionWord(word)) return { ok: false, message: unknown(word) };
    const keyword = word.toLowerCase() as ProtectionKeyword;
    if (seen.has(keyword)) return { ok: false, message: PROTECTION_MESSAGES.twice(keyword) };
    seen.add(keyword);
    const value = words[i + 1];
    if (value === undefined || isProtectionWord(value)) {
      return { ok: false, message: PROTECTION_MESSAGES.missing(keyword) };
    }
    const refused = readLeg(keyword, value, draft);
    if (refused !== null) return { ok: false, message: refused };
  }
  const checked = ProtectionInput.safeParse(draft);
  if (!checked.success) {
    return { ok: false, message: checked.error.issues[0]?.message ?? PROTECTION_MESSAGES.empty };
  }
  return { ok: true, protection: checked.data };
}

/**
 * What `protect <asset> …` asks: `off` (remove), or the protection to set in place of the present one.
 */
export type ProtectCommandParse =
  | { ok: true; off: true }
  | { ok: true; off: false; protection: ProtectionInput }
  | { ok: false; message: string };

export function parseProtectCommand(words: readonly string[]): ProtectCommandParse {
  if (words.length === 0) return { ok: false, message: PROTECTION_MESSAGES.empty };
  const offAt = words.findIndex((w) => w.toLowerCase() === PROTECTION_OFF);
  if (offAt >= 0) {
    return words.length === 1 ? { ok: true, off: true } : { ok: false, message: PROTECTION_MESSAGES.off };
  }
  const parsed = parseProtectionWords(words, PROTECTION_MESSAGES.word);
  return parsed.ok ? { ok: true, off: false, protection: parsed.protection } : parsed;
}
