import {
  Button,
  Checkbox,
  FileButton,
  Group,
  Image,
  Modal,
  Progress,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { ResponseData } from '@svc/sdk';
import { apiClient, api } from '../../api/client.ts';
import { progressFetch } from '../../api/upload-fetch.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';

export type Media = ResponseData<'listMedia'>['items'][number];

/**
 * Upload a file (with a progress bar) or pick from the library; the chosen media go with the post.
 * With `onAltText`, each chosen image has an alt text field.
 */
export function MediaPicker({
  value,
  onChange,
  error,
  altText,
  onAltText,
}: {
  value: Media[];
  onChange: (media: Media[]) => void;
  error?: string[];
  altText?: Record<string, string>;
  onAltText?: (altText: Record<string, string>) => void;
}) {
  const [progress, setProgress] = useState<number | null>(null);
  const [opened, { open, close }] = useDisclosure(false);
  const library = useQuery({
    queryKey: ['media'],
    queryFn: () => api.media.list({ limit: 50 }).page(),
    enabled: opened,
  });
  const upload = useMutation({
    mutationFn: (file: File) => {
      setProgress(0);
      const client = apiClient(
        progressFetch((loaded, total) => setProgress(total > 0 ? Math.round((loaded / total) * 100) : 0)),
      );
      return client.media.upload(file, { filename: file.name });
    },
    onSuccess: (media) => onChange([...value, media as Media]),
    onSettled: () => setProgress(null),
  });
  const toggle = (media: Media) =>
    onChange(
      value.some((m) => m.media_id === media.media_id)
        ? value.filter((m) => m.media_id !== media.media_id)
        : [...value, media],
    );
  return (
    <Stack gap="xs">
      <Text fw={500} id="media-label">
        Media
      </Text>
      <Group>
        <FileButton onChange={(file) => file && upload.mutate(file)} accept="image/*,video/*">
          {(props) => (
            <Button {...props} variant="default" loading={upload.isPending} data-testid="upload-media">
              Upload a file
            </Button>
          )}
        </FileButton>
        <Button variant="default" onClick={open}>
          Pick from the library
        </Button>
      </Group>
      {progress !== null && <Progress value={progress} aria-label="Upload progress" size="lg" striped animated />}
      <ErrorAlert error={upload.error} title="The upload failed" />
      {value.length > 0 && (
        <Group aria-labelledby="media-label">
          {value.map((media) => (
            <Stack key={media.media_id} gap={2} align="center">
              {media.kind === 'image' ? (
                <Image
                  src={media.public_url}
                  alt={altText?.[media.media_id] || 'Chosen media'}
                  w={72}
                  h={72}
                  fit="cover"
                  radius="sm"
                />
              ) : (
                <Text size="sm">Video</Text>
              )}
              <Button
                size="compact-xs"
                variant="subtle"
                onClick={() => toggle(media)}
                aria-label={`Remove media ${media.media_id}`}
              >
                Remove
              </Button>
              {onAltText !== undefined && media.kind === 'image' && (
                <TextInput
                  size="xs"
                  label={`Alt text for image ${value.indexOf(media) + 1}`}
                  value={altText?.[media.media_id] ?? ''}
                  onChange={(e) => onAltText({ ...altText, [media.media_id]: e.currentTarget.value })}
                />
              )}
            </Stack>
          ))}
        </Group>
      )}
      {error?.map((message) => (
        <Text key={message} c="red.8" size="sm" role="alert">
          {message}
        </Text>
      ))}
      <Modal opened={opened} onClose={close} title="Media library" size="lg">
        <ErrorAlert error={library.error} />
        <SimpleGrid cols={4}>
          {(library.data?.items ?? []).map((media) => (
            <Stack key={media.media_id} gap={4} align="center">
              {media.kind === 'image' ? (
                <Image
                  src={media.public_url}
                  alt={`Library media ${media.media_id}`}
                  w={96}
                  h={96}
                  fit="cover"
                  radius="sm"
                />
              ) : (
                <Text size="sm">Video</Text>
              )}
              <Checkbox
                label="Use"
                aria-label={`Use media ${media.media_id}`}
                checked={value.some((m) => m.media_id === media.media_id)}
                onChange={() => toggle(media)}
              />
            </Stack>
          ))}
        </SimpleGrid>
        {library.data?.items.length === 0 && <Text c="gray.7">The library is empty.</Text>}
      </Modal>
    </Stack>
  );
}
