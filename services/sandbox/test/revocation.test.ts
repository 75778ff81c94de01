import request from 'supertest';
import { createSandboxApp } from '../src/app.ts';

// A `token_revoked` fault revokes the grant of the token the faulted call presented, on every network
// (docs/networks.md §7): what a user removing the app does, so the token stays refused afterwards.
describe('sandbox: token_revoked revokes the grant on every network', () => {
  const app = createSandboxApp({ publicUrl: 'http://127.0.0.1:4010', allowPrivateUrls: true, processingPolls: 1 });
  const version = new Date().toISOString().slice(0, 7).replace('-', '');
  beforeEach(async () => void (await request(app).post('/__sandbox/reset').expect(204)));

  const arm = (network: string) =>
    request(app).post('/__sandbox/faults').send({ network, fault: 'token_revoked' }).expect(201);

  /** One authenticated read per network, and how the network says a token is revoked. */
  const probes: [string, (token: string) => request.Test, (res: request.Response) => void][] = [
    [
      'facebook',
      (token) => request(app).get('/facebook/v25.0/me').query({ access_token: token }),
      (res) => expect(res.body.error).toEqual(expect.objectContaining({ code: 190, error_subcode: 458 })),
    ],
    [
      'instagram',
      (token) =>
        request(app)
          .get('/facebook/v25.0/17841400000000001/content_publishing_limit')
          .set('Authorization', `OAuth ${token}`),
      (res) => expect(res.body.error).toEqual(expect.objectContaining({ code: 190, error_subcode: 458 })),
    ],
    [
      'x',
      (token) => request(app).get('/x/2/users/me').set('Authorization', `Bearer ${token}`),
      (res) => expect(res.status).toBe(401),
    ],
    [
      'linkedin',
      (token) => request(app).get('/linkedin/v2/userinfo').set('Authorization', `Bearer ${token}`),
      (res) => expect(res.body).toEqual(expect.objectContaining({ status: 401, code: 'REVOKED_ACCESS_TOKEN' })),
    ],
    [
      'tiktok',
      (token) =>
        request(app).get('/tiktok/v2/user/info/').query({ fields: 'open_id' }).set('Authorization', `Bearer ${token}`),
      (res) => expect(res.body.error).toEqual(expect.objectContaining({ code: 'access_token_invalid' })),
    ],
  ];

  it.each(probes)(
    '%s: a BYOK token stays refused after the fault; other tokens keep working',
    async (network, call, refused) => {
      const token = `byok-${network}-revoked`;
      const other = `byok-${network}-other`;
      expect((await call(token)).status).toBe(200);
      await arm(network);
      refused(await call(token));
      const after = await call(token);
      refused(after);
      expect((await request(app).get('/__sandbox/faults')).body).toEqual({ pending: [] });
      expect((await call(other)).status).toBe(200);
    },
  );

  it('Facebook: the Page tokens of a revoked user grant are refused too', async () => {
    const user = 'byok-fb-user';
    const pages = await request(app).get('/facebook/v25.0/me/accounts').query({ access_token: user });
    const pageToken = pages.body.data[0].access_token as string;
    expect((await request(app).get('/facebook/v25.0/me').query({ access_token: pageToken })).status).toBe(200);
    await arm('facebook');
    await request(app).get('/facebook/v25.0/me').query({ access_token: user });
    const page = await request(app).get('/facebook/v25.0/me').query({ access_token: pageToken });
    expect(page.body.error).toEqual(expect.objectContaining({ code: 190, error_subcode: 458 }));
  });

  it('LinkedIn: an issued grant loses its refresh token too; authorizing the app again makes a new grant', async () => {
    const authorize = async () => {
      const consent = await request(app).get('/linkedin/oauth/v2/authorization').query({
        response_type: 'code',
        client_id: 'c',
        redirect_uri: 'https://a/cb',
        state: 's',
        scope: 'openid profile w_member_social',
      });
      const code = new URL(consent.headers.location as string).searchParams.get('code');
      const tokens = await request(app).post('/linkedin/oauth/v2/accessToken').type('form').send({
        grant_type: 'authorization_code',
        code,
        redirect_uri: 'https://a/cb',
        client_id: 'c',
        client_secret: 's',
      });
      return tokens.body as { access_token: string; refresh_token: string };
    };
    const refresh = (refreshToken: string) =>
      request(app)
        .post('/linkedin/oauth/v2/accessToken')
        .type('form')
        .send({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'c', client_secret: 's' });
    const first = await authorize();
    await arm('linkedin');
    const revoked = await request(app)
      .get('/linkedin/rest/organizationAcls')
      .query({ q: 'roleAssignee' })
      .set({ Authorization: `Bearer ${first.access_token}`, 'LinkedIn-Version': version });
    expect(revoked.body.code).toBe('REVOKED_ACCESS_TOKEN');
    expect((await refresh(first.refresh_token)).body).toEqual({
      error: 'invalid_grant',
      error_description: 'Token has been expired or revoked.',
    });
    const again = await authorize();
    expect(
      (await request(app).get('/linkedin/v2/userinfo').set('Authorization', `Bearer ${again.access_token}`)).status,
    ).toBe(200);
    expect((await refresh(again.refresh_token)).status).toBe(200);
  });

  it('a fault met by a token endpoint revokes the refresh token it was asked to renew', async () => {
    const consent = await request(app).get('/linkedin/oauth/v2/authorization').query({
      response_type: 'code',
      client_id: 'c',
      redirect_uri: 'https://a/cb',
      scope: 'openid profile',
    });
    const code = new URL(consent.headers.location as string).searchParams.get('code');
    const tokens = (
      await request(app).post('/linkedin/oauth/v2/accessToken').type('form').send({
        grant_type: 'authorization_code',
        code,
        redirect_uri: 'https://a/cb',
        client_id: 'c',
        client_secret: 's',
      })
    ).body as { access_token: string; refresh_token: string };
    const refresh = () =>
      request(app)
        .post('/linkedin/oauth/v2/accessToken')
        .type('form')
        .send({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'c', client_secret: 's' });
    await arm('linkedin');
    expect((await refresh()).body.error).toBe('invalid_grant');
    expect((await refresh()).body.error).toBe('invalid_grant');
    const access = await request(app)
      .get('/linkedin/v2/userinfo')
      .set('Authorization', `Bearer ${tokens.access_token}`);
    expect(access.body.code).toBe('REVOKED_ACCESS_TOKEN');
  });
});
