import { KeywordFilter, splitTerms } from '../../contracts/keywords';

/**
 * `--include "listing, hack" --exclude perpetual` into a checked filter (a flag not given is an empty
 * list), or the first thing wrong with it as the server would say it.
 */
export function keywordFlags(
  include: string | undefined,
  exclude: string | undefined,
): KeywordFilter | string {
  const parsed = KeywordFilter.safeParse({
    include: include === undefined ? [] : splitTerms(include),
    exclude: exclude === undefined ? [] : splitTerms(exclude),
  });
  return parsed.success ? parsed.data : (parsed.error.issues[0]?.message ?? 'Those words are not valid.');
}
