import { Button, Group } from '@mantine/core';

/**
 * Previous and Next for a list the API pages by cursor. `cursors` holds the cursor of every page
 * seen so far (the first is `undefined`), the last one being the page shown; Previous drops it, Next
 * adds `nextCursor`. Next waits while the shown page is still the previous one's placeholder.
 */
export function CursorPager({
  cursors,
  onChange,
  nextCursor,
  placeholder,
}: {
  cursors: (string | undefined)[];
  onChange: (cursors: (string | undefined)[]) => void;
  nextCursor: string | null | undefined;
  placeholder: boolean;
}) {
  return (
    <Group>
      <Button variant="default" disabled={cursors.length === 1} onClick={() => onChange(cursors.slice(0, -1))}>
        Previous page
      </Button>
      <Button
        variant="default"
        disabled={!nextCursor || placeholder}
        onClick={() => nextCursor && onChange([...cursors, nextCursor])}
      >
        Next page
      </Button>
    </Group>
  );
}
