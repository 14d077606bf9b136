ALTER TABLE "rule_decisions" ADD COLUMN "venue_ms" real;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "venue_own_ms" real;