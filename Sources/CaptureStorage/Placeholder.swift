public enum CaptureStorageModule {}
