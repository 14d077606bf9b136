/** Browser and OS named from a User-Agent string: the device_info of docs/product.md §3, for both sides. */
const BROWSERS: readonly [RegExp, string][] = [
  [/Edg\//, 'Edge'],
  [/OPR\/|Opera/, 'Opera'],
  [/Firefox\//, 'Firefox'],
  [/Chrom(e|ium)\//, 'Chrome'],
  [/Safari\//, 'Safari'],
  [/node|undici|curl/i, 'Command line'],
];

const SYSTEMS: readonly [RegExp, string][] = [
  [/Windows/, 'Windows'],
  [/Android/, 'Android'],
  [/iPhone|iPad|iOS/, 'iOS'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

const first = (table: readonly [RegExp, string][], ua: string): string =>
  table.find(([re]) => re.test(ua))?.[1] ?? 'Unknown';

export function describeUserAgent(userAgent: string | undefined): { browser: string; os: string } {
  const ua = userAgent ?? '';
  return { browser: first(BROWSERS, ua), os: first(SYSTEMS, ua) };
}

/**
 * An approximate place from an IANA time zone, as the browser reports it (no network call): the
 * city and region, e.g. "Europe/Berlin" is "Berlin, Europe". Zones that name no place (UTC, Etc/…)
 * give nothing.
 */
export function placeFromTimeZone(timeZone: string | undefined): string | undefined {
  const parts = (timeZone ?? '').split('/').filter((p) => p !== '');
  const region = parts[0];
  const city = parts[parts.length - 1];
  if (parts.length < 2 || region === undefined || city === undefined || region === 'Etc') return undefined;
  const place = `${city.replaceAll('_', ' ')}, ${region.replaceAll('_', ' ')}`;
  return place.length <= 64 ? place : undefined;
}

/** The device_info a browser sends when a login is remembered: browser, OS and, when known, place. */
export function deviceInfoOf(
  userAgent: string | undefined,
  timeZone?: string,
): { browser: string; os: string; place?: string } {
  const place = placeFromTimeZone(timeZone);
  return { ...describeUserAgent(userAgent), ...(place === undefined ? {} : { place }) };
}
