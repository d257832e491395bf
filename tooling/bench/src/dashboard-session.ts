/** Signs in with the dashboard's login form, as a browser does, and answers the session cookie. */
export async function signIn(server: string, credentials: { email: string; password: string }, timeoutMs: number): Promise<string> {
  const response = await fetch(`${server}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: server },
    body: new URLSearchParams(credentials).toString(),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const cookie = response.headers
    .getSetCookie()
    .map((header) => header.split(";")[0]!)
    .find((pair) => /^(__Host-)?rehook_session=./.test(pair));
  if (response.status !== 303 || !cookie) throw new Error(`sign-in answered ${response.status} without a session cookie`);
  return cookie;
}
