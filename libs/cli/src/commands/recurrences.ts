import type { Command } from 'commander';
import { action } from '../command-context.ts';
import type { CliIo } from '../io.ts';
import { describeRule, type RecurrenceRule } from '../post/recurrence-option.ts';

interface RecurrenceView {
  id: string;
  rule: RecurrenceRule;
  status: string;
  occurrences_created: number;
  next_occurrences: string[];
}

function render(recurrence: RecurrenceView): string {
  return [
    `Recurrence ${recurrence.id}: ${recurrence.status}, ${describeRule(recurrence.rule)}`,
    `Occurrences created: ${recurrence.occurrences_created}`,
    'Next times:',
    ...(recurrence.next_occurrences.length === 0 ? ['  (none)'] : recurrence.next_occurrences.map((at) => `  ${at}`)),
  ].join('\n');
}

/** `svc recurrences get|delete <id>`: a recurring post made by `svc post --repeat` (docs/api-recurring.md). */
export function registerRecurrences(program: Command, io: CliIo): void {
  const recurrences = program.command('recurrences').description('recurring posts (svc post --repeat): show, stop');

  recurrences
    .command('get')
    .description('show the rule, its status and its next times (UTC)')
    .argument('<id>', 'the recurrence’s id (recurrence_id of its posts)')
    .action(
      action(io, async (ctx, [id]) => {
        const shown = (await (await ctx.session()).api().recurrences.get(id as string)) as RecurrenceView;
        ctx.out.result(shown, () => render(shown));
      }),
    );

  recurrences
    .command('delete')
    .description('stop it: no more occurrences, those still scheduled canceled')
    .argument('<id>', 'the recurrence’s id')
    .action(
      action(io, async (ctx, [id]) => {
        await (await ctx.session()).api().recurrences.delete(id as string);
        ctx.out.result({ id, deleted: true }, () => `Recurrence ${id as string} stopped.`);
      }),
    );
}
