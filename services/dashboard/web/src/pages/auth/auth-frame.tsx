import { Container, Paper, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** The signed-out pages' frame: a landmark and a heading around one form. */
export function AuthFrame({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Container size={420} py={60} component="main">
      <Title order={1} ta="center" mb="lg">
        {title}
      </Title>
      <Paper withBorder shadow="sm" p="lg" radius="md">
        {children}
      </Paper>
    </Container>
  );
}
