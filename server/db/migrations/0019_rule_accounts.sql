ALTER TABLE "risk_settings" ADD COLUMN "live_max_order_usd" numeric;--> statement-breakpoint
ALTER TABLE "risk_settings" ADD COLUMN "live_daily_budget_usd" numeric;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "account" text DEFAULT 'paper' NOT NULL;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "account_mode" text DEFAULT 'paper' NOT NULL;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "arrival_price" numeric;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "fee" numeric;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "sent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "acked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "twin_price" numeric;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "twin_quantity" numeric;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "twin_fee" numeric;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "twin_refused" text;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "exit_order_id" text;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "exit_pnl" numeric;--> statement-breakpoint
ALTER TABLE "rules" ADD COLUMN "account" text DEFAULT 'paper' NOT NULL;