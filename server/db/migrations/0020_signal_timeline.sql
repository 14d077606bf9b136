ALTER TABLE "signals" ADD COLUMN "analysed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "signals" ADD COLUMN "backlog" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "signal_published_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "signal_received_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "signal_analysed_at" timestamp with time zone;