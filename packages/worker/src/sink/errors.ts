import { ConnectorError, excerpt } from '@plugboard/sdk';

/**
 * A page of a run into the sink found the stream's checkpoint moved since the run read it:
 * another run of the stream wrote it first. Nothing of the page was written and the run stopped;
 * a run started again resumes from the checkpoint now stored.
 */
export class SinkCheckpointMovedError extends ConnectorError {
  /** The stable code of this failure. */
  static readonly code = 'sink_checkpoint_moved';

  /** The page skipped, counted from 0 in this run. */
  readonly page: number;

  constructor(stream: string, page: number) {
    super(
      `PostgreSQL sink: page ${page} of stream ${JSON.stringify(excerpt(stream))} was skipped: the stream's checkpoint is no longer the one this run read (another run wrote it); run again to resume from the stored checkpoint`,
      { code: SinkCheckpointMovedError.code, retryable: true, platformStatus: 409 },
    );
    this.page = page;
  }
}
