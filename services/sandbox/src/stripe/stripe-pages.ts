/**
 * The markup shared by the sandbox's hosted Stripe pages (Checkout and the customer portal): plain
 * server-rendered HTML that works without JavaScript, with one landmark, labelled controls and
 * errors announced to assistive technology.
 */

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** `$29.00`: an amount in the currency's minor unit, as Stripe's pages show it. */
export function formatAmount(minor: number, currency: string): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(minor / 100);
}

export function formatDate(seconds: number): string {
  return new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(seconds * 1000));
}

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; color: #1a1a1a; background: #f6f8fa; margin: 0; }
  main { max-width: 28rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border: 1px solid #d0d7de; border-radius: 8px; }
  h1 { font-size: 1.5rem; margin-top: 0; }
  .sandbox { background: #fff8c5; border: 1px solid #9a6700; padding: .5rem .75rem; border-radius: 6px; }
  label { display: block; font-weight: 600; margin-top: 1rem; }
  .hint { display: block; color: #57606a; font-size: .875rem; }
  input { box-sizing: border-box; width: 100%; font: inherit; padding: .5rem; border: 1px solid #57606a; border-radius: 6px; }
  input[aria-invalid="true"] { border: 2px solid #cf222e; }
  .field-error { display: block; color: #a40e26; font-weight: 600; }
  button { font: inherit; font-weight: 600; margin-top: 1.25rem; padding: .625rem 1rem; border: 0; border-radius: 6px; background: #0a5cd5; color: #fff; cursor: pointer; }
  button.secondary { background: #fff; color: #a40e26; border: 1px solid #a40e26; }
  :focus-visible { outline: 3px solid #0a5cd5; outline-offset: 2px; }
  .problem { border: 2px solid #cf222e; padding: .5rem 1rem; border-radius: 6px; }
  .notice { border: 2px solid #1a7f37; padding: .5rem 1rem; border-radius: 6px; }
  section { border-top: 1px solid #d0d7de; margin-top: 1rem; }
  form.inline { display: inline-block; margin-right: .5rem; }
`;

export function pageHtml(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
<p class="sandbox">Stripe sandbox for development: no payment is taken and nothing leaves this machine.</p>
</main>
</body>
</html>
`;
}

/** A page that says one thing (not found, expired) with an optional way onward. */
export function messagePage(title: string, message: string, link?: { href: string; text: string }): string {
  const onward = link === undefined ? '' : `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></p>`;
  return pageHtml(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>\n${onward}`);
}
