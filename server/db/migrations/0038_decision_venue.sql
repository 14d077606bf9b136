ALTER TABLE "rule_decisions" ADD COLUMN "account_venue" text DEFAULT 'paper' NOT NULL;--> statement-breakpoint
-- Decisions on a key were all on Binance before other venues could be chosen.
UPDATE "rule_decisions" SET "account_venue" = 'binance' WHERE "account_mode" <> 'paper';
