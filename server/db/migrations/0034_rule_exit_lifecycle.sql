DROP INDEX "rule_decisions_open_exit_idx";--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "exit_reason" text;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "exit_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "exit_next_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "exit_client_id" text;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "exit_started_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "rule_decisions_open_exit_idx" ON "rule_decisions" USING btree ("exit_state") WHERE "rule_decisions"."exit_state" in ('open', 'closing');