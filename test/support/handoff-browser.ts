/**
 * A browser, as far as an OAuth hand-off needs one: it keeps the cookies the gateway sets (by name,
 * sent only under their Path, dropped at Max-Age=0), follows nothing by itself, and reaches the
 * gateway's public address (`PUBLIC_BASE_URL`, which the networks redirect to) at the port the test
 * gateway listens on. It never saw `start`, so it holds no flow cookie until the hand-off gives it one.
 */
export class HandoffBrowser {
  private readonly cookies = new Map<string, { value: string; path: string }>();

  constructor(
    /** Where the test gateway listens (the harness's MEDIA_PUBLIC_BASE_URL). */
    private readonly gatewayBaseUrl: string,
    /** The gateway's public origin, as links and redirects name it. */
    private readonly publicOrigin = 'http://api.test.local',
  ) {}

  /** One request, as a page's navigation or form post would make it; redirects are returned, not followed. */
  async request(
    url: string,
    init: { method?: 'GET' | 'POST'; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const target = this.resolve(url);
    const ours = target.origin === new URL(this.gatewayBaseUrl).origin;
    const cookie = ours ? this.cookieHeader(target.pathname) : '';
    const response = await fetch(target, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: {
        ...(cookie === '' ? {} : { cookie }),
        ...(init.form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
        ...init.headers,
      },
      ...(init.form === undefined ? {} : { body: new URLSearchParams(init.form).toString() }),
    });
    if (ours) this.keep(response.headers.getSetCookie());
    return response;
  }

  /** The cookies this browser holds for the gateway, by name. */
  cookieNames(): string[] {
    return [...this.cookies.keys()];
  }

  private resolve(url: string): URL {
    const parsed = new URL(url);
    return parsed.origin === this.publicOrigin
      ? new URL(`${parsed.pathname}${parsed.search}`, this.gatewayBaseUrl)
      : parsed;
  }

  private cookieHeader(path: string): string {
    return [...this.cookies]
      .filter(([, cookie]) => path === cookie.path || path.startsWith(`${cookie.path}/`))
      .map(([name, cookie]) => `${name}=${cookie.value}`)
      .join('; ');
  }

  private keep(setCookies: string[]): void {
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const name = pair.slice(0, pair.indexOf('='));
      const value = pair.slice(pair.indexOf('=') + 1);
      const attribute = (key: string) =>
        attributes.find((part) => part.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
      if (attribute('max-age') === '0') this.cookies.delete(name);
      else this.cookies.set(name, { value, path: attribute('path') ?? '/' });
    }
  }
}

/** The confirmation page's form: its anti-forgery value and target. */
export function confirmationForm(html: string): { confirm: string; action: string } {
  const confirm = /name="confirm" value="([^"]+)"/.exec(html)?.[1];
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (confirm === undefined || action === undefined) throw new Error(`no confirmation form in:\n${html}`);
  return { confirm, action };
}

/**
 * What a person does with a hand-off link: open it, press Continue, consent on the network (the
 * sandbox consents at once), and come back to the callback. Returns the callback's response.
 */
export async function connectThroughHandoff(browser: HandoffBrowser, handoffUrl: string): Promise<Response> {
  const page = await browser.request(handoffUrl);
  if (page.status !== 200) throw new Error(`the hand-off page answered ${page.status}: ${await page.text()}`);
  const form = confirmationForm(await page.text());
  const continued = await browser.request(new URL(form.action, handoffUrl).toString(), {
    method: 'POST',
    form: { confirm: form.confirm },
    headers: { 'sec-fetch-site': 'same-origin' },
  });
  if (continued.status !== 303) throw new Error(`Continue answered ${continued.status}: ${await continued.text()}`);
  const consent = await browser.request(continued.headers.get('location')!);
  if (consent.status !== 302) throw new Error(`the network's consent answered ${consent.status}`);
  return browser.request(consent.headers.get('location')!);
}
