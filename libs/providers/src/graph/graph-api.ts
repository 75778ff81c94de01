import { type NetworkClient } from '../http/network-client.ts';

export type GraphParams = Record<string, string | number | boolean | undefined>;

function form(params: GraphParams): URLSearchParams {
  const body = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) body.set(key, String(value));
  return body;
}

/**
 * Calls under `/{version}` of the Graph host. The token travels in the Authorization header, never
 * in the URL, so it cannot end up in access logs or error messages.
 */
export class GraphApi {
  constructor(
    readonly client: NetworkClient,
    readonly version: string,
  ) {}

  async get<T>(path: string, params: GraphParams, token: string): Promise<T> {
    const response = await this.client.request<T>({
      method: 'GET',
      url: `/${this.version}${path}`,
      params: Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined)),
      headers: { Authorization: `Bearer ${token}` },
    });
    return response.data;
  }

  async post<T>(path: string, params: GraphParams, token: string): Promise<T> {
    const response = await this.client.request<T>({
      method: 'POST',
      url: `/${this.version}${path}`,
      data: form(params).toString(),
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    return response.data;
  }

  async delete<T>(path: string, token: string): Promise<T> {
    const response = await this.client.request<T>({
      method: 'DELETE',
      url: `/${this.version}${path}`,
      headers: { Authorization: `Bearer ${token}` },
    });
    return response.data;
  }

  /** Unauthenticated calls (OAuth code exchange) whose secrets are query parameters by Graph's design. */
  async getPublic<T>(path: string, params: GraphParams): Promise<T> {
    const response = await this.client.request<T>({ method: 'GET', url: `/${this.version}${path}`, params });
    return response.data;
  }
}
