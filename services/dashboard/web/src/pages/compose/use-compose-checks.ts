import { useDebouncedValue } from '@mantine/hooks';
import { useQueries, useQuery } from '@tanstack/react-query';
import type { RequestBody } from '@svc/sdk';
import { capabilitiesOf, hasOperation, validatePost, type Capabilities } from '../../api/optional-operations.ts';

/** The API's answer on a draft body, debounced: the authoritative problems while the user types. */
export function useValidation(body: RequestBody<'createPost'>, ready: boolean) {
  const [debounced] = useDebouncedValue(body, 400);
  return useQuery({
    queryKey: ['validate', debounced],
    queryFn: ({ signal }) => validatePost(debounced, signal),
    enabled: ready && hasOperation('validatePost'),
    staleTime: 60_000,
  });
}

/** Each chosen account's capabilities (null while unknown, or without the operation). */
export function useCapabilities(accountIds: string[]): Map<string, Capabilities | null> {
  const results = useQueries({
    queries: accountIds.map((id) => ({
      queryKey: ['capabilities', id],
      queryFn: () => capabilitiesOf(id),
      staleTime: 5 * 60_000,
    })),
  });
  return new Map(accountIds.map((id, index) => [id, results[index]?.data ?? null]));
}
