import { Badge, Button, Group, Stack, Text, Textarea, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { ResponseData } from '@svc/sdk';
import { api } from '../../api/client.ts';
import { CopyField } from '../../components/copy-field.tsx';
import { formatDateTime } from '../../components/dates.ts';
import { ActionError } from './action-error.tsx';
import { approvalLabel } from './approval-status.ts';

type Post = ResponseData<'getPost'>;

/**
 * A draft's approval: ask for it; while it is pending, approve or request changes with a comment
 * (as the signed-in user), or copy a review link for someone without an account.
 */
export function DraftApproval({ post, onChanged }: { post: Post; onChanged: (post?: Post) => void }) {
  const [comment, setComment] = useState('');
  const request = useMutation({
    mutationFn: () => api.posts.requestApproval(post.id),
    onSuccess: (updated) => onChanged(updated),
    onError: () => onChanged(),
  });
  const review = useMutation({
    mutationFn: (decision: 'approve' | 'request_changes') =>
      api.posts.review(post.id, { decision, ...(comment.trim() === '' ? {} : { comment: comment.trim() }) }),
    onSuccess: (updated) => {
      setComment('');
      onChanged(updated);
    },
    onError: () => onChanged(),
  });
  const link = useMutation({ mutationFn: () => api.posts.createReviewLink(post.id) });
  const status = approvalLabel(post.approval);
  const pending = post.approval?.status === 'pending';

  return (
    <Stack gap="xs">
      <Title order={3} size="h5">
        Approval
      </Title>
      <Text size="sm" role="status">
        <Badge color={status.color} variant="light" data-testid="approval-status">
          {status.label}
        </Badge>
        {post.approval?.decided_at &&
          ` · ${formatDateTime(post.approval.decided_at)}${post.approval.decided_via === 'review_link' ? ' through a review link' : ''}`}
      </Text>
      {post.approval?.comment && <Text size="sm">“{post.approval.comment}”</Text>}
      {!pending && (
        <Group>
          <Button variant="default" loading={request.isPending} onClick={() => request.mutate()}>
            Request approval
          </Button>
        </Group>
      )}
      <ActionError error={request.error} action="request-approval" />
      {pending && (
        <>
          <Textarea
            label="Review comment (optional)"
            autosize
            minRows={2}
            value={comment}
            onChange={(e) => setComment(e.currentTarget.value)}
          />
          <Group>
            <Button loading={review.isPending} onClick={() => review.mutate('approve')}>
              Approve
            </Button>
            <Button variant="default" loading={review.isPending} onClick={() => review.mutate('request_changes')}>
              Request changes
            </Button>
            <Button variant="default" loading={link.isPending} onClick={() => link.mutate()}>
              Copy review link
            </Button>
          </Group>
          <ActionError error={review.error} action="review" />
          <ActionError error={link.error} action="review-link" />
          {link.data && (
            <Stack gap={4}>
              <Text size="sm">
                Anyone with this link can approve or request changes until {formatDateTime(link.data.expires_at)}, or
                until the draft is edited:
              </Text>
              <CopyField label="review link" value={link.data.url} />
            </Stack>
          )}
        </>
      )}
    </Stack>
  );
}
