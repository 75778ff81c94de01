import { validationError } from '@svc/errors';
import { checkUrl } from '@svc/http';

export interface UrlRules {
  allowPrivate: boolean;
  /** Production receivers must be https (docs/api-conventions.md, "URLs users give us"). */
  requireHttps: boolean;
}

/**
 * docs/api-conventions.md, "URLs users give us" for a receiver URL, checked when it is given (a 400
 * now beats failing deliveries later): http(s), no credentials in it, https in production, and a host
 * that resolves to no link-local/metadata address (nor private/loopback unless allowed). Delivery
 * checks again at connect time. The answer never says whether the host resolved.
 */
export async function assertReceiverUrl(raw: string, rules: UrlRules): Promise<string> {
  const refuse = (message: string) => validationError(`The webhook url ${message}.`, [{ path: '/body/url', message }]);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('must use http or https');
  if (rules.requireHttps && url.protocol !== 'https:') throw refuse('must use https');
  if (url.username !== '' || url.password !== '') throw refuse('must not contain credentials');
  const check = await checkUrl(raw, { allowPrivate: rules.allowPrivate });
  if (!check.ok) {
    // One sentence for a name that does not resolve and one that resolves somewhere refused: telling
    // them apart would let a tenant probe which internal names exist.
    const reasons = {
      invalid: 'is not a valid URL',
      scheme: 'must use http or https',
      unresolvable:
        'has an address that is not allowed or could not be resolved (private, loopback, link-local and metadata addresses are refused)',
      blocked:
        'has an address that is not allowed or could not be resolved (private, loopback, link-local and metadata addresses are refused)',
    } as const;
    throw refuse(reasons[check.reason]);
  }
  return url.toString();
}
