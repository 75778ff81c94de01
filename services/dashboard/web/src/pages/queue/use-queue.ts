import { useQuery } from '@tanstack/react-query';
import { SvcApiError } from '@svc/sdk';
import { api } from '../../api/client.ts';

export const QUEUE_KEY = ['queue'] as const;

/** The organization's queue, or null when none is set (the API's 404). */
export function useQueue() {
  return useQuery({
    queryKey: QUEUE_KEY,
    queryFn: async () => {
      try {
        return await api.queue.get();
      } catch (error) {
        if (error instanceof SvcApiError && error.status === 404) return null;
        throw error;
      }
    },
  });
}
