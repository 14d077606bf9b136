ALTER TABLE "risk_settings" ALTER COLUMN "max_order_usd" DROP NOT NULL;--> statement-breakpoint
-- Rows written with the old fixed default (any other setting saved wrote it too) take the default that fits the account.
UPDATE "risk_settings" SET "max_order_usd" = NULL WHERE "max_order_usd" = 250000;
