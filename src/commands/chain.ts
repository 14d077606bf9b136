/**
 * The line language around single commands: `;` runs several commands in turn, and a first word that
 * is an alias stands for its expansion (`alias b="btc long"` makes `b 5k` mean `btc long 5k`).
 */

/** Splits a line on `;` outside quotes; empty parts are dropped. */
export function splitChain(line: string): string[] {
  const parts: string[] = [];
  let part = '';
  let quote: '"' | "'" | null = null;
  for (const ch of line) {
    if (quote !== null) {
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
    } else if (ch === ';') {
      parts.push(part);
      part = '';
      continue;
    }
    part += ch;
  }
  parts.push(part);
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

/** How deep an alias may use other aliases before the expansion stops (a loop ends there). */
export const ALIAS_DEPTH = 5;

/**
 * The commands a line stands for, in order: chained parts split, and each part's first word replaced
 * by its alias (which may itself hold `;` and other aliases, up to {@link ALIAS_DEPTH} levels).
 */
export function expandLine(line: string, aliases: Readonly<Record<string, string>>, depth = 0): string[] {
  return splitChain(line).flatMap((part) => {
    const match = /^(\S+)(.*)$/s.exec(part);
    const first = match?.[1]?.toLowerCase() ?? '';
    const expansion = Object.hasOwn(aliases, first) ? aliases[first] : undefined;
    if (expansion === undefined || depth >= ALIAS_DEPTH) return [part];
    return expandLine(`${expansion}${match?.[2] ?? ''}`, aliases, depth + 1);
  });
}

/** An alias name: a lower-case word that is not a command or a ticker (checked by the caller). */
export const ALIAS_NAME = /^[a-z][a-z0-9-]{0,23}$/;

/** `b="btc long"` (already unquoted by the tokenizer: `b=btc long`) → name and expansion. */
export function parseAliasDefinition(text: string): { name: string; expansion: string } | null {
  const at = text.indexOf('=');
  if (at <= 0) return null;
  const name = text.slice(0, at).trim().toLowerCase();
  const expansion = text.slice(at + 1).trim();
  return expansion === '' ? null : { name, expansion };
}
