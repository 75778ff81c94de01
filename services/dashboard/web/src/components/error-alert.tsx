import { Alert } from '@mantine/core';
import { describeError } from '../api/errors.ts';

export function ErrorAlert({ error, title }: { error: unknown; title?: string }) {
  if (error === null || error === undefined) return null;
  return (
    <Alert color="red" role="alert" title={title} mb="md">
      {describeError(error)}
    </Alert>
  );
}
