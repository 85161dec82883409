-- The receipts of the trigger receivers in queued mode, found by when they came: pruning removes
-- those received before a cut-off through this index, whatever order their ids are in (a receiver
-- whose clock ran ahead writes rows that are not yet old among the oldest ids).

CREATE INDEX plugboard_trigger_deliveries_received ON plugboard_trigger_deliveries (received_at);
