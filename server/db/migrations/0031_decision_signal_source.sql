ALTER TABLE "rule_decisions" ADD COLUMN "signal_source" text;--> statement-breakpoint
-- The decisions made before: their source, from the signal they decided on.
UPDATE "rule_decisions" SET "signal_source" = "signals"."source" FROM "signals" WHERE "signals"."id" = "rule_decisions"."signal_id";
