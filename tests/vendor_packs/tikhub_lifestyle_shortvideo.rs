//! The TikHub pack for Xiaohongshu (`lifestyle`), Douyin (`shortvideo`) and TikTok (`intlshort`).
