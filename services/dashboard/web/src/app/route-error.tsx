import { Alert, Container } from '@mantine/core';
import { useRouteError } from 'react-router-dom';
import { describeError } from '../api/errors.ts';

export function RouteError() {
  const error = useRouteError();
  return (
    <Container size="sm" py="xl">
      <Alert color="red" title="This page could not be shown" role="alert">
        {describeError(error)}
      </Alert>
    </Container>
  );
}
