import { Group, Title } from '@mantine/core';
import { useEffect, type ReactNode } from 'react';

/** The page's one h2 (h1 is the product name) and the document title, so screen readers announce it. */
export function PageTitle({ children, actions }: { children: string; actions?: ReactNode }) {
  useEffect(() => {
    document.title = `${children} · Social Publishing`;
  }, [children]);
  return (
    <Group justify="space-between" mb="md">
      <Title order={2}>{children}</Title>
      {actions}
    </Group>
  );
}
