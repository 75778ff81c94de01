import { Alert } from '@mantine/core';
import { describeError } from '../../api/errors.ts';
import { explainDraftError, type DraftAction } from './draft-errors.ts';

/** A refused draft action, explained in words where the API's answer has a meaning here. */
export function ActionError({ error, action }: { error: unknown; action: DraftAction }) {
  if (error === null || error === undefined) return null;
  return (
    <Alert color="red" role="alert" data-testid="draft-refused">
      {explainDraftError(error, action) ?? describeError(error)}
    </Alert>
  );
}
