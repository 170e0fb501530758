import { oneLine, truncate } from './escape.ts';
import type { ApprovalFailedMessage } from './message.ts';
import { approverNames, formatUtc } from './summary.ts';

/** The lines an e-mail about a failed approval starts its table with (unescaped): the error, who approved, when. */
export function failedRows(m: ApprovalFailedMessage): Array<[string, string]> {
  return [
    ['Error', truncate(oneLine(m.error), 1000)],
    ['Approved by', approverNames(m.approvers)],
    ['Failed at', formatUtc(m.failedAt)],
  ];
}
