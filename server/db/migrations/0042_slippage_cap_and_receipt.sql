ALTER TABLE "risk_settings" ADD COLUMN "max_slippage_pct" numeric;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "slippage_estimated_pct" numeric;--> statement-breakpoint
ALTER TABLE "rule_decisions" ADD COLUMN "slippage_actual_pct" numeric;