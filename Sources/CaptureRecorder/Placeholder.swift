public enum CaptureRecorderModule {}
