// Set-Cookie lines of a response as the tests read them: name, decoded value, attributes (lower-cased names).
export interface Cookie {
  name: string;
  value: string;
  attrs: Record<string, string | true>;
}

export function cookiesOf(res: Response): Cookie[] {
  return res.headers.getSetCookie().map((line) => {
    const [pair, ...rest] = line.split(';');
    const eq = pair!.indexOf('=');
    const attrs: Record<string, string | true> = {};
    for (const a of rest) {
      const i = a.indexOf('=');
      if (i < 0) attrs[a.trim().toLowerCase()] = true;
      else attrs[a.slice(0, i).trim().toLowerCase()] = a.slice(i + 1).trim();
    }
    return { name: pair!.slice(0, eq).trim(), value: decodeURIComponent(pair!.slice(eq + 1).trim()), attrs };
  });
}
