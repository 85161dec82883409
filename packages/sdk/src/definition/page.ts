/** One page of a source's records, with the checkpoint to resume after it. */
export interface Page<R = unknown, C = unknown> {
  /** The page's records, each checked against the action's entity before the host sees it. */
  records: R[];
  /** Where the next run resumes when this page is the last one acknowledged; left out when it does not move. */
  checkpoint?: C;
}
