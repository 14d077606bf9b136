ALTER TABLE "trades" ALTER COLUMN "realized_pnl" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "trades" ALTER COLUMN "fee" DROP NOT NULL;