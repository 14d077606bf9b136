import type { FastifyInstance } from 'fastify';

/** Signs a new user up through the API and logs in; returns the bearer header to use. */
export async function signUpAndLogIn(
  app: FastifyInstance,
  username: string,
  password = 'correct horse battery',
): Promise<{ authorization: string; token: string }> {
  const signup = await app.inject({
    method: 'POST',
    url: '/api/auth/signup',
    payload: { email: `${username}@example.com`, username, password },
  });
  if (signup.statusCode >= 300) throw new Error(`signup failed: ${signup.statusCode} ${signup.body}`);
  const login = await app.inject({
    method: 'POST',
    url: '/api/auth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ username, password, remember_me: 'false' }).toString(),
  });
  const token = (login.json() as { access_token?: string }).access_token;
  if (!token) throw new Error(`login failed: ${login.statusCode} ${login.body}`);
  return { authorization: `Bearer ${token}`, token };
}
