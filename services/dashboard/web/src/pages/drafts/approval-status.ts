import type { ResponseData } from '@svc/sdk';

type Approval = ResponseData<'getPost'>['approval'];

/** A draft's approval in words and a colour for its badge; no approval asked is said too. */
export function approvalLabel(approval: Approval): { label: string; color: string } {
  switch (approval?.status) {
    case undefined:
      return { label: 'No approval asked', color: 'gray' };
    case 'pending':
      return { label: 'Waiting for approval', color: 'yellow' };
    case 'approved':
      return { label: 'Approved', color: 'green' };
    case 'changes_requested':
      return { label: 'Changes requested', color: 'red' };
  }
}
