ALTER TABLE "signals" ADD COLUMN "dispute" jsonb;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "retracted_by" bigint;--> statement-breakpoint
CREATE INDEX "signals_marked_idx" ON "signals" USING btree ("received_at") WHERE "signals"."retracted_by" is not null or "signals"."dispute" is not null;