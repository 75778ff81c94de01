import type { ResponseData } from '@svc/sdk';

/**
 * Why a connect cannot go on: the API started the flow but gave no hand-off link (it answers without
 * one while it cannot store links). Its authorize_url is no use to this browser: the flow's cookie was
 * set on the dashboard's server, never here, so the network's callback would refuse the consent.
 */
export class ConnectLinkUnavailable extends Error {
  constructor() {
    super(
      'The API cannot make connection links right now (its link store is unavailable), so nothing was started. Try again in a moment.',
    );
    this.name = 'ConnectLinkUnavailable';
  }
}

/**
 * Where this browser goes to connect an account: the API's hand-off page, on the API's own address,
 * which names the network and the organization, and whose Continue gives this browser the flow's
 * cookie there and goes on to the network's consent. Only an http(s) link is followed.
 */
export function handoffTarget(started: ResponseData<'startOAuth'>): string {
  const link = started.handoff_url;
  if (link === undefined) throw new ConnectLinkUnavailable();
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    throw new ConnectLinkUnavailable();
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConnectLinkUnavailable();
  return url.toString();
}
