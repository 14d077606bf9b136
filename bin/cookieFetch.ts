/**
 * `fetch` with a cookie jar, for Node: the refresh cookie the server sets on login and rotates on each
 * refresh is sent back on the auth routes, as a browser would (path `/api/auth`).
 */
export function cookieFetch(jar: Map<string, string>, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const headers = new Headers(init?.headers);
    if (url.pathname.startsWith('/api/auth') && jar.size > 0) {
      headers.set('cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '));
    }
    const response = await base(input, { ...init, headers });
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      if (at <= 0) continue;
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const expires = attributes.find((a) => /^\s*expires=/i.test(a));
      const expired = expires !== undefined && Date.parse(expires.split('=')[1] ?? '') < Date.now();
      const maxAgeZero = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (value === '' || expired || maxAgeZero) jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  };
}
