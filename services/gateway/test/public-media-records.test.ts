import { AppError } from '@svc/errors';
import type { RpcCaller } from '../src/http/rpc-caller.ts';
import { PublicMediaRecords } from '../src/routes/public-media-records.ts';

const answering = (answer: () => Promise<unknown>) => {
  const rpc = jest.fn(answer);
  return { rpc, records: new PublicMediaRecords(rpc as unknown as RpcCaller) };
};

describe('PublicMediaRecords', () => {
  it('says whether the publisher has a record, and remembers a found one', async () => {
    const { rpc, records } = answering(async () => ({ exists: true }));
    expect(await records.has('med_a', 'r1')).toBe(true);
    expect(await records.has('med_a', 'r2')).toBe(true);
    expect(rpc).toHaveBeenCalledTimes(1);
    const absent = answering(async () => ({ exists: false }));
    expect(await absent.records.has('med_b', 'r1')).toBe(false);
    expect(await absent.records.has('med_b', 'r2')).toBe(false);
    expect(absent.rpc).toHaveBeenCalledTimes(2);
  });

  it('does not know when the publisher cannot answer, so a network fetching the file is not refused', async () => {
    const { records } = answering(async () => {
      throw new AppError('service_unavailable', 'The publisher did not answer in time.', { retryable: true });
    });
    expect(await records.has('med_c', 'r1')).toBeUndefined();
  });

  it('passes on errors that are not the publisher being unavailable', async () => {
    const { records } = answering(async () => {
      throw new AppError('validation_error', 'bad id');
    });
    await expect(records.has('med_d', 'r1')).rejects.toMatchObject({ code: 'validation_error' });
  });
});
