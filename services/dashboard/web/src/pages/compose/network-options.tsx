import { Select, Stack, Text, Title } from '@mantine/core';
import { networkLabel } from '../accounts/networks.ts';
import { postTypeLabel } from './post-types.ts';

const TIKTOK_PRIVACY = ['SELF_ONLY', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'PUBLIC_TO_EVERYONE'];

/** Per-network options: the post type where the accounts offer several, TikTok's privacy level. */
export function NetworkOptions(props: {
  networks: string[];
  postTypeChoices: Map<string, string[]>;
  postTypes: Record<string, string>;
  onPostTypes: (value: Record<string, string>) => void;
  privacy: string | null;
  onPrivacy: (value: string | null) => void;
  problems: string[];
}) {
  const { networks, problems } = props;
  const withOptions = networks.filter((n) => n === 'tiktok' || props.postTypeChoices.has(n));
  if (withOptions.length === 0) return problems.length > 0 ? <Text c="red.8">{problems.join(' ')}</Text> : null;
  return (
    <Stack gap="xs">
      <Title order={3} size="h5">
        Network options
      </Title>
      {withOptions.map((network) => {
        const types = props.postTypeChoices.get(network);
        return (
          <Stack key={network} gap="xs">
            {types !== undefined && (
              <Select
                label={`${networkLabel(network)} post type`}
                data={types.map((type) => ({ value: type, label: postTypeLabel(type) }))}
                value={props.postTypes[network] ?? types[0] ?? null}
                allowDeselect={false}
                onChange={(type) => type !== null && props.onPostTypes({ ...props.postTypes, [network]: type })}
              />
            )}
            {network === 'tiktok' && (
              <Select label="Who can view" data={TIKTOK_PRIVACY} value={props.privacy} onChange={props.onPrivacy} />
            )}
          </Stack>
        );
      })}
      {problems.length > 0 && (
        <Text c="red.8" size="sm" role="alert">
          {problems.join(' ')}
        </Text>
      )}
    </Stack>
  );
}
