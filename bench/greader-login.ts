// ClientLogin against a Google Reader API server (Tidings or FreshRSS's greader.php), as the peer
// benches do before their calls: the authorization header for the calls that follow.
export async function greaderLogin(base: string, user: string, password: string): Promise<{ authorization: string }> {
  const login = await (
    await fetch(`${base}/accounts/ClientLogin`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ Email: user, Passwd: password }),
    })
  ).text();
  const auth = login.split('\n').find((l) => l.startsWith('Auth='));
  if (!auth) throw new Error(`ClientLogin at ${base} failed: ${login.slice(0, 300)}`);
  return { authorization: `GoogleLogin auth=${auth.slice(5)}` };
}
